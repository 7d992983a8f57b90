// What the benchmarks that drive the real product share: a migrated Postgres with a seeded workspace, processes
// started from the repository's sources (the API, a phone) that report when they are ready, and percentiles.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyMigrations, createDb, issueAgentToken, startEmbeddedPostgres } from "@phoneloop/state";
import { seedWorkspace } from "@phoneloop/state/testing";

export const root = fileURLToPath(new URL("../../", import.meta.url));

/** The p-th percentile (nearest rank) of a list of numbers. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/**
 * Starts a TypeScript entry of the repository as a child process; resolves with the first match of `ready` in its output.
 * `nodeArgs` go to node before the entry (e.g. --cpu-prof).
 */
export function startProcess(args: string[], env: Record<string, string>, ready: RegExp, nodeArgs: string[] = []): Promise<{ proc: ChildProcess; match: RegExpExecArray }> {
  const proc = spawn(process.execPath, [...nodeArgs, "--import", "tsx", ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolve({ proc, match: m });
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`${args[0]} exited (${code}) before it was ready: ${out}`)));
  });
}

/**
 * The API server (apps/api/src/server.ts) as its own process over `databaseUrl`, on a loopback port; `url` once it listens.
 * With BENCH_API_CPU_PROF=<dir> in the bench's environment each API process runs under `node --cpu-prof` and writes
 * its main thread's profile (a .cpuprofile per process) into that folder when it stops; `bench/support/cpu-profile.ts
 * <dir>` sums it per function and per file. Native threads (sharp's image work, the libuv pool) are not in it.
 */
export async function startApi(databaseUrl: string, env: Record<string, string> = {}): Promise<{ proc: ChildProcess; url: string }> {
  const profDir = process.env.BENCH_API_CPU_PROF;
  const api = await startProcess(
    ["apps/api/src/server.ts"],
    { DATABASE_URL: databaseUrl, API_PORT: "0", API_HOST: "127.0.0.1", PHONELOOP_SECRET_KEY: "bench-secret-key-not-for-production-0000", ...env },
    /on (http:\/\/127\.0\.0\.1:\d+)/,
    profDir ? ["--cpu-prof", "--cpu-prof-dir", profDir] : [],
  );
  return { proc: api.proc, url: api.match[1]! };
}

/** Stops a child process and waits for it to exit. */
export async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGTERM");
  await exited;
}

/**
 * A temporary Postgres (durable writes unless `fast`), migrated, with one workspace whose admin issues agent tokens,
 * and the API server over it on a loopback port.
 */
export async function startBenchCore(name: string, opts: { fast?: boolean; env?: Record<string, string> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), `phoneloop-bench-${name}-`));
  const pg = await startEmbeddedPostgres({ dataDir: join(dir, "data"), ephemeral: true, fast: opts.fast ?? false });
  const databaseUrl = pg.urlFor("postgres");
  await applyMigrations(databaseUrl);
  const db = createDb(databaseUrl, { max: 2 });
  const { workspace, admin } = await seedWorkspace(db, "Bench team");
  const api = await startApi(databaseUrl, opts.env);
  const issueToken = async (tokenName: string) => (await issueAgentToken(db, { workspaceId: workspace.id, issuedBy: admin.id, name: tokenName })).token;
  /** The database connection closed, the API stopped (waited for), Postgres stopped and its folder removed. */
  const stop = async () => {
    await db.$disconnect();
    await stopProcess(api.proc);
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, pg, databaseUrl, db, workspace, admin, api: api.proc, apiUrl: api.url, issueToken, stop };
}
