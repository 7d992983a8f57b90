// The sense effect family: reading the phone for the executor — the screenshot, UI tree and foreground app of a
// step (started beside the route, so device reads and image work overlap the step's record), draining the phone
// after a resume found an action in flight, and OCR of the last screenshot where the tree is blind. The
// observation's evidence (and its screenshot's upload) is queued for the step's next record.
import type { InputEffect, Observation } from "../executor.ts";
import { isDeviceLost, PreparedFrames, sense, type DeviceOutcome, type Sensed, type Settled } from "../effects.ts";
import { listElements } from "../observe.ts";
import { guard, type ExecutorRunState, type RunContext } from "../state.ts";
import type { StepRecords } from "./step-record.ts";
import { isBlack } from "../../images/dark.ts";

export class Senses {
  /** What Device.waitForStable settled on after the last action: the next observation's screenshot and tree. */
  settled: Settled | null = null;
  /** Frames prepared for the model lately: a screen seen again is not decoded and encoded again. */
  readonly #frames = new PreparedFrames();
  /** Sensing started beside the route (used only by the sense that follows that route). */
  #prefetched: Promise<DeviceOutcome<Sensed>> | null = null;
  /** The last sensed screenshot at full size (what OCR reads when the tree is blind). */
  #lastShot: Uint8Array | null = null;

  constructor(
    private readonly ctx: RunContext,
    private readonly records: StepRecords,
  ) {}

  /** Starts sensing now: it needs nothing written or routed, so it runs beside the step's record and the route. */
  prefetch(): void {
    this.#prefetched = sense(this.ctx, this.ctx.ports.device, this.settled, this.#frames);
    this.#prefetched.catch(() => undefined); // awaited by the sense that follows, or dropped when the route stops
    this.settled = null;
  }

  /** Takes what was prefetched, for the sense that follows the route (any other effect drops it). */
  takePrefetched(): Promise<DeviceOutcome<Sensed>> | null {
    const p = this.#prefetched;
    this.#prefetched = null;
    return p;
  }

  async sense(state: ExecutorRunState, e: Extract<InputEffect, { type: "sense" }>, prefetched: Promise<DeviceOutcome<Sensed>> | null): Promise<Observation> {
    const ctx = this.ctx;
    const out = await (prefetched ?? sense(ctx, ctx.ports.device, this.settled, this.#frames));
    this.settled = null;
    if (!out.ok) return { type: "sense_failed", lost: out.lost, message: out.message };
    const { screenshot, tree, foreground, prepared } = out.value;
    this.#lastShot = screenshot.png;
    const app = foreground ? `${foreground.packageName}${foreground.activity ? `/${foreground.activity}` : ""}` : "unknown";
    const elements = listElements(tree, screenshot.width, screenshot.height);
    // A screen nothing can be seen on: the device says the window is secure, or the screenshot is black.
    const blind = foreground?.secure ? "secure" : isBlack(prepared.dark) ? "black" : undefined;
    const ex = state.executor;
    const key = `${state.runId}:${e.stepIndex}:observation:${e.lease.leaseKey}`;
    // The screenshot's upload starts now; the record that carries the observation waits for it.
    const blob = ctx.config.storeScreenshots ? this.records.putScreenshot(prepared.forModel) : undefined;
    blob?.catch(() => undefined); // awaited by the record that names it
    this.records.evidence(
      {
        idempotencyKey: key,
        kind: "observation",
        goalId: state.goalId,
        runId: state.runId,
        todoId: ex.todoId,
        lease: e.lease,
        stepIndex: e.stepIndex,
        summary: `${app}, ${elements.length} elements${blind ? `, blind screen (${blind === "secure" ? "secure window" : "black screenshot"})` : ""}`,
        data: { app, phash: prepared.phash, screen: { width: screenshot.width, height: screenshot.height }, elements: elements.map((x) => ({ i: x.index, text: x.text, id: x.resourceId, box: x.box, ...(x.password ? { password: true } : {}) })) },
      },
      blob,
    );
    return {
      type: "sensed",
      screen: { app, packageName: foreground?.packageName ?? null, width: screenshot.width, height: screenshot.height, phash: prepared.phash, blocks: prepared.blocks, tree, elements, image: prepared.forModel, observationKey: key, ...(blind ? { blind } : {}) },
    };
  }

  /**
   * The action in flight may still be on its way (a lagging phone carries out a tap of the dead connection seconds
   * later): the screen is read once the phone ran every input it was sent and settled. The device layer asks the
   * phone; a device that cannot be asked only settles.
   */
  async drain(): Promise<Observation> {
    const ctx = this.ctx;
    const device = ctx.ports.device;
    const { timeoutMs, intervalMs, requiredMatches, minQuietMs } = ctx.config.stable;
    const stable = { timeoutMs, intervalMs, requiredMatches, minQuietMs, checkLoadingIndicators: true };
    try {
      const d = device.drain ? await device.drain({ stable }) : { drained: true, checked: false, running: [], waitedMs: 0, settled: await device.waitForStable(stable) };
      guard(ctx);
      if (d.settled) this.settled = { screenshot: d.settled.screenshot, ...(d.settled.stable && d.settled.tree ? { tree: d.settled.tree } : {}) };
      const fg = await device.foreground().catch((err: unknown) => {
        if (isDeviceLost(err)) throw err;
        return null;
      });
      guard(ctx);
      return { type: "drained", drained: d.drained, checked: d.checked, running: d.running, waitedMs: d.waitedMs, app: fg ? `${fg.packageName}${fg.activity ? `/${fg.activity}` : ""}` : null };
    } catch (err) {
      guard(ctx);
      if (isDeviceLost(err)) return { type: "sense_failed", lost: true, message: err instanceof Error ? err.message : String(err) };
      return { type: "drained", drained: false, checked: false, running: [], waitedMs: 0, app: null };
    }
  }

  /** OCR of the last sensed screenshot (`around`: the point the action lands on). */
  async readScreen(e: Extract<InputEffect, { type: "read_screen" }>): Promise<Observation> {
    const ocr = this.ctx.ports.ocr;
    if (!ocr || !this.#lastShot) return { type: "screen_read", ocr: null };
    // A reader that fails leaves the screen unread: the permission checkpoint decides without a reading.
    const read = await ocr.read(this.#lastShot, e.around ? { around: e.around } : {}).catch(() => null);
    guard(this.ctx);
    return { type: "screen_read", ocr: read ? { items: read.items } : null };
  }
}
