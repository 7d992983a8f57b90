// Runs every suite — type checks, lint, Vitest (all packages), Playwright (e2e) — against one Postgres
// (embedded unless DATABASE_URL is set) and ends with one line: `N passed, N failed, N skipped`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbeddedPostgres, type RunningPostgres } from "../packages/state/src/db/embedded-postgres.ts";

const root = new URL("..", import.meta.url).pathname;
const resultsDir = join(root, ".data", "test-results");
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

interface Tally {
  suite: string;
  passed: number;
  failed: number;
  skipped: number;
}
const tallies: Tally[] = [];

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): number {
  console.log(`\n$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function check(suite: string, cmd: string, args: string[]): void {
  const code = run(cmd, args);
  tallies.push({ suite, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 });
}

let pg: RunningPostgres | undefined;
let adminUrl: string;
if (process.env.DATABASE_URL) {
  const u = new URL(process.env.DATABASE_URL);
  u.pathname = "/postgres";
  adminUrl = u.toString();
} else {
  pg = await startEmbeddedPostgres({
    dataDir: join(mkdtempSync(join(tmpdir(), "phoneloop-test-pg-")), "data"),
    ephemeral: true,
    fast: true,
  });
  adminUrl = pg.adminUrl;
}
// A server started here is deleted with its folder when the run ends: test files leave their databases to it
// (packages/state/src/testing/test-database.ts, testServerIsThrowaway).
const testEnv = { PHONELOOP_TEST_PG_ADMIN_URL: adminUrl, ...(pg ? { PHONELOOP_TEST_PG_THROWAWAY: "1" } : {}) };

try {
  check("typecheck", "npx", ["turbo", "run", "typecheck", "--output-logs=errors-only"]);
  check("lint", "npx", ["eslint", "."]);
  check("vocabulary", "npx", ["tsx", "scripts/check-vocabulary.ts"]);

  const vitestJson = join(resultsDir, "vitest.json");
  const vitestCode = run(
    "npx",
    ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${vitestJson}`],
    testEnv,
  );
  if (existsSync(vitestJson)) {
    const v = JSON.parse(readFileSync(vitestJson, "utf8"));
    tallies.push({
      suite: "vitest",
      passed: v.numPassedTests,
      failed: v.numFailedTests + (vitestCode !== 0 && v.numFailedTests === 0 ? 1 : 0),
      skipped: v.numPendingTests + v.numTodoTests,
    });
  } else {
    tallies.push({ suite: "vitest", passed: 0, failed: 1, skipped: 0 });
  }

  if (existsSync(join(root, "e2e", "playwright.config.ts"))) {
    const pwJson = join(resultsDir, "playwright.json");
    const pwCode = run("npx", ["playwright", "test", "-c", "e2e/playwright.config.ts", "--reporter=list,json"], {
      ...testEnv,
      PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson,
    });
    if (existsSync(pwJson)) {
      const s = JSON.parse(readFileSync(pwJson, "utf8")).stats;
      tallies.push({
        suite: "playwright",
        passed: s.expected + s.flaky,
        failed: s.unexpected + (pwCode !== 0 && s.unexpected === 0 ? 1 : 0),
        skipped: s.skipped,
      });
    } else {
      tallies.push({ suite: "playwright", passed: 0, failed: 1, skipped: 0 });
    }
  }
} finally {
  await pg?.stop();
}

console.log("\nSuites:");
for (const t of tallies) console.log(`  ${t.suite.padEnd(11)} ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
const sum = (k: "passed" | "failed" | "skipped") => tallies.reduce((n, t) => n + t[k], 0);
console.log(`${sum("passed")} passed, ${sum("failed")} failed, ${sum("skipped")} skipped`);
process.exit(sum("failed") === 0 ? 0 : 1);
