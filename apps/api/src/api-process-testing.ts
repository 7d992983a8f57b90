// A real API process (apps/api/src/server.ts) on a test database, for the tests of what only a process shows: its
// signals, its exit code, several processes on one database. Run as a deployment runs it (docs/deploy.md): node with
// tsx as a loader, one process, so a signal reaches the server itself (the tsx command is a second process that
// relays signals and kills a child that does not confirm one within 30 ms). Its output is kept for the messages.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

export interface ApiProcess {
  proc: ChildProcess;
  url: string;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, and its exit code once it has exited (a no-op answer if it had). */
  stop(): Promise<number | null>;
}

export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", "apps/api/src/server.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, API_PORT: "0", API_HOST: "127.0.0.1", PHONELOOP_SECRET_KEY: "api-process-test-secret-key-0123456789", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    void exited.then((code) => reject(new Error(`The API process exited (${code}) before it listened: ${out}`)));
  });
  return {
    proc,
    url,
    exited,
    output: () => out,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      return exited;
    },
  };
}
