// Each attempt gets its own virtual phone, in its own process (as a real phone is its own machine): started with
// the task's scenario, seed and perturbations through the phone's CLI, trusting the suite's ADB key, on free ports.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Perturbation } from "@phoneloop/virtual-phone";

const PHONE_CLI = fileURLToPath(new URL("../../virtual-phone/src/cli.ts", import.meta.url));

export interface PhoneProcess {
  adbPort: number;
  controlUrl: string;
  controlToken: string;
  stop(): Promise<void>;
}

export interface PhoneProcessInit {
  scenario: string;
  seed: number;
  perturb: readonly Perturbation[];
  /** A file with the public key(s) the phone already trusts (the suite's ADB key). */
  adbKeysFile: string;
  /** How long the phone may take to print its ports (default 60 s). */
  readyTimeoutMs?: number;
}

export function startPhoneProcess(init: PhoneProcessInit): Promise<PhoneProcess> {
  const args = ["--import", "tsx", PHONE_CLI, "--scenario", init.scenario, "--seed", String(init.seed), "--adb-port", "0", "--ws-port", "0", "--control-port", "0", "--adb-keys", init.adbKeysFile];
  if (init.perturb.length) args.push("--perturb", init.perturb.join(","));
  const proc = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`the virtual phone did not start within ${Math.round((init.readyTimeoutMs ?? 60_000) / 1000)} s; its output: ${out.slice(-500)}`));
    }, init.readyTimeoutMs ?? 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const adb = /adb connect [^:\s]+:(\d+)/.exec(out);
      const control = /Control API\s+(http:\/\/\S+)/.exec(out);
      const token = /Control token\s+(\S+)/.exec(out);
      if (adb && control && token) {
        clearTimeout(timer);
        proc.stdout!.off("data", onData);
        proc.stdout!.resume();
        proc.stderr!.resume();
        resolve({ adbPort: Number(adb[1]), controlUrl: control[1]!, controlToken: token[1]!, stop: () => stopProcess(proc) });
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the virtual phone exited (code ${code}) before it was ready: ${out.slice(-800)}`));
    });
  });
}

function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => proc.kill("SIGKILL"), 5000);
    proc.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    proc.kill("SIGTERM");
  });
}
