// Reboot as a phone does it: connections drop, the ADB port stays dark while the phone restarts, then adbd comes back
// before Android has finished booting (sys.boot_completed is empty until it has), with every app's state reset.
import type { PhoneEngine } from "../engine.ts";

export interface BootTimings {
  /** How long no ADB connection is accepted after the reboot starts. */
  offlineMs: number;
  /** From adbd's return to sys.boot_completed=1. */
  bootMs: number;
}

/** Fast enough for tests, slow enough that clients see the phone go away and wait for the boot. */
export const DEFAULT_BOOT_TIMINGS: BootTimings = { offlineMs: 1500, bootMs: 2000 };

export class PowerCycle {
  #offline = false;
  #timers: NodeJS.Timeout[] = [];
  reboots = 0;

  constructor(
    private readonly engine: PhoneEngine,
    private readonly timings: BootTimings = DEFAULT_BOOT_TIMINGS,
  ) {}

  get offline(): boolean {
    return this.#offline;
  }

  get booting(): boolean {
    return this.engine.props["sys.boot_completed"] !== "1";
  }

  /** Starts a reboot; returns at once so the command that asked for it can still answer. */
  reboot(reason = ""): Promise<void> {
    if (this.#offline) return Promise.resolve();
    this.reboots++;
    const props = this.engine.props;
    props["sys.powerctl"] = reason ? `reboot,${reason}` : "reboot";
    // let the asking stream flush its reply and close, as adbd does before init pulls the plug
    this.#later(30, () => {
      this.#offline = true;
      props["sys.boot_completed"] = "";
      props["dev.bootcomplete"] = "";
      props["init.svc.bootanim"] = "running";
      this.engine.dropConnections();
      this.#later(this.timings.offlineMs, () => {
        this.engine.fs.bootedAt = Date.now();
        this.engine.reset();
        this.#offline = false;
        this.#later(this.timings.bootMs, () => {
          props["sys.boot_completed"] = "1";
          props["dev.bootcomplete"] = "1";
          props["init.svc.bootanim"] = "stopped";
          delete props["sys.powerctl"];
        });
      });
    });
    return Promise.resolve();
  }

  #later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers = this.#timers.filter((x) => x !== t);
      fn();
    }, ms);
    this.#timers.push(t);
  }

  /** Stops pending boot steps (the phone is being shut down for good). */
  dispose(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers = [];
  }
}
