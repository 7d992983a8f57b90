// Test support for drills that run the agent CLI as its own process, as `npm run agent` does: an ADB key the virtual
// phone lists (so the worker's connection is allowed, as on a phone that allowed this computer), the worker spawned
// with that key and an agent token, its output collected, and polling until what the test waits for is true.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NodeCredentialStore } from "@phoneloop/device/node";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

export interface AdbKeyDir {
  /** The folder to pass as ANDROID_USER_HOME: it holds `adbkey` and `adbkey.pub`. */
  dir: string;
  /** The public key line, for the virtual phone's `adbKeys`. */
  publicKey: string;
  remove(): void;
}

/** A fresh ADB key pair in its own temporary folder. */
export function adbKeyDir(): AdbKeyDir {
  const dir = mkdtempSync(join(tmpdir(), "phoneloop-adbkey-"));
  new NodeCredentialStore({ path: join(dir, "adbkey") }).generateKey();
  return { dir, publicKey: readFileSync(join(dir, "adbkey.pub"), "utf8"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface WorkerProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

export interface SpawnWorkerOptions {
  /** ANDROID_USER_HOME: the folder of adbKeyDir(). */
  keysDir: string;
  agentToken: string;
  args: string[];
  /** Extra environment (e.g. the phone's control token). */
  env?: Record<string, string>;
  /**
   * "launcher" runs packages/cli/bin/agent.mjs as `npm run agent` does; "source" runs main.ts under tsx's loader in
   * one process, so a SIGKILL reaches the agent itself (killing tsx's launcher would leave the agent running).
   */
  entry?: "launcher" | "source";
}

export function spawnWorker(o: SpawnWorkerOptions): WorkerProcess {
  const argv = o.entry === "source" ? ["--import", "tsx", "packages/cli/src/agent/main.ts", ...o.args] : ["packages/cli/bin/agent.mjs", ...o.args];
  const child = spawn(process.execPath, argv, {
    cwd: root,
    env: { ...process.env, ANDROID_USER_HOME: o.keysDir, OPENAI_API_KEY: "test-key", PHONELOOP_API_URL: "", PHONELOOP_AGENT_ID: "", PHONELOOP_AGENT_TOKEN: o.agentToken, ...o.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Polls until `read` yields a value (the test's own timeout fails it if it never does). */
export async function until<T>(read: () => T | undefined | null | false | Promise<T | undefined | null | false>): Promise<T> {
  for (;;) {
    const v = await read();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}
