// `npm start` serves the web app's production build: built once, and again only when a source it is built from
// changed. The hash of those sources is kept beside the build (.next/source-hash) to tell.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

/** What the web bundle is made of: the web app, the workspace packages it compiles in, and the locked dependencies. */
const SOURCE_ROOTS = ["apps/web", "apps/api/src", "packages", "package-lock.json", "tsconfig.base.json"];
// What tools write is not a source: a hidden folder (.next, a check's .next-keycheck, .turbo, .data, a build lock),
// build and test output, and next-env.d.ts, which every `next build` rewrites naming its own output folder. Were it
// hashed, a build would change the hash it is stored under, and the next start or test worker would build again —
// replacing the scripts a running `next start` serves, so a page opened then fails to load them.
const SKIP_DIRS = new Set(["node_modules", "dist", "generated", "test-results", "fixtures", "scratch", "coverage"]);
const SKIP_FILE = /(\.test\.tsx?|\.tsbuildinfo|\.log|^next-env\.d\.ts)$/;

export const SOURCE_HASH_FILE = ".next/source-hash";

export function webSourceHash(root: string): string {
  const hash = createHash("sha256");
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const child = join(path, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) visit(child);
      } else if (e.isFile() && !SKIP_FILE.test(e.name)) {
        hash.update(relative(root, child)).update("\0").update(readFileSync(child)).update("\0");
      }
    }
  };
  for (const r of SOURCE_ROOTS) {
    const path = join(root, r);
    if (r.endsWith(".json")) {
      if (existsSync(path)) hash.update(r).update("\0").update(readFileSync(path)).update("\0");
    } else visit(path);
  }
  return hash.digest("hex");
}

/** Builds apps/web unless its last build was made from these very sources. Returns whether it built. */
export function ensureWebBuild(root: string, log: (line: string) => void = console.log): boolean {
  const webDir = join(root, "apps/web");
  const hashFile = join(webDir, SOURCE_HASH_FILE);
  const hash = webSourceHash(root);
  const current = () => existsSync(join(webDir, ".next/BUILD_ID")) && existsSync(hashFile) && readFileSync(hashFile, "utf8").trim() === hash;
  if (current()) return false;
  // One build at a time in .next (two `npm start`s, parallel test workers): the others wait, then use it.
  const lock = join(webDir, ".next-build-lock");
  while (!tryLock(lock)) sleepSync(500);
  try {
    if (current()) return false;
    return build(root, hashFile, hash, log);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A build that died leaves its lock; one older than any build takes is taken over. */
const STALE_LOCK_MS = 20 * 60_000;

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    const age = existsSync(lock) ? Date.now() - statSync(lock).mtimeMs : Infinity;
    if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function build(root: string, hashFile: string, hash: string, log: (line: string) => void): boolean {
  log("Building the web app (once; again only when its sources change)…");
  const r = spawnSync("npx", ["next", "build", "apps/web"], { cwd: root, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) throw new Error("next build failed (its output is above). Fix the error it names, or run `npm run dev` to use the development server meanwhile.");
  writeFileSync(hashFile, `${hash}\n`);
  return true;
}
