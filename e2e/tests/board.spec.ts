// The web board, live: a real Postgres, the API in this process, the built Next app served by `next start`, and
// Chromium. A todo claimed through the API moves lanes on an open page without a reload.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { createApiServer, type ApiServer } from "@phoneloop/api";
import { createApiClient } from "@phoneloop/client";
import { applyMigrations, createDb, startEmbeddedPostgres, type Db, type RunningPostgres } from "@phoneloop/state";

const webDir = fileURLToPath(new URL("../../apps/web/", import.meta.url));
const nextBin = fileURLToPath(new URL("../../node_modules/.bin/next", import.meta.url));

let pg: RunningPostgres;
let db: Db;
let api: ApiServer;
let web: ChildProcess;
let webUrl: string;

function apiClient(who: { memberId?: string } = {}) {
  return createApiClient({ apiUrl: api.url, credentials: who });
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

// `next build` only when the last build is older than the web app's source; the build reads the API address at
// request time, so one build serves any port.
function ensureWebBuild(): void {
  const buildId = join(webDir, ".next", "BUILD_ID");
  const source = Math.max(newestMtime(join(webDir, "src")), statSync(join(webDir, "next.config.ts")).mtimeMs);
  if (existsSync(buildId) && statSync(buildId).mtimeMs > source) return;
  const r = spawnSync(nextBin, ["build"], { cwd: webDir, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`next build failed:\n${r.stdout}\n${r.stderr}`);
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  pg = await startEmbeddedPostgres({ dataDir: join(mkdtempSync(join(tmpdir(), "phoneloop-e2e-board-")), "data"), ephemeral: true, fast: true });
  const url = pg.urlFor("phoneloop_board_e2e");
  await applyMigrations(url);
  db = createDb(url);
  const webPort = await freePort();
  webUrl = `http://127.0.0.1:${webPort}`;
  api = await createApiServer({ db, databaseUrl: url, port: 0, host: "127.0.0.1", webOrigins: [webUrl] });

  ensureWebBuild();
  web = spawn(nextBin, ["start", "-p", String(webPort), "-H", "127.0.0.1"], {
    cwd: webDir,
    env: { ...process.env, NEXT_PUBLIC_API_URL: api.url, NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await expect
    .poll(async () => (await fetch(webUrl).then((r) => r.status, () => 0)) === 200, { timeout: 60_000 })
    .toBe(true);
});

test.afterAll(async () => {
  if (web && web.exitCode === null) {
    const exited = new Promise((r) => web.once("exit", r));
    web.kill("SIGTERM");
    await exited;
  }
  await api?.close();
  await db?.$disconnect();
  await pg?.stop();
});

test("the board renders a lane per todo state and moves a card live when the todo is claimed through the API", async ({ page }) => {
  const client = apiClient();
  const goal = await client.goal.create.mutate({ title: "Book a table for two", objective: "Friday 19:00, under 80 EUR", createdBy: "m_e2e" });
  const todos = await client.todo.add.mutate({
    goalId: goal.id,
    todos: [{ title: "Open the booking app" }, { title: "Search Italian places" }, { title: "Pick a table at 19:00" }],
  });
  await client.agent.register.mutate({ id: "agent_e2e_pixel", name: "Pixel tab", kind: "browser", capabilities: [] });

  await page.goto(`${webUrl}/goals/${goal.id}`);
  await expect(page.getByRole("heading", { name: /Book a table for two/ })).toBeVisible();
  for (const lane of ["pending", "claimed", "running", "validating", "blocked", "failed", "done"]) {
    await expect(page.locator(`[data-lane="${lane}"]`)).toBeVisible();
  }
  await expect(page.locator('[data-lane="pending"] [data-todo-id]')).toHaveCount(3);
  await expect(page.locator('[data-lane="claimed"] [data-todo-id]')).toHaveCount(0);
  // Subscribed before the claim, so the card moves because of the event, not a reload.
  await expect(page.locator('[data-stream="live"]')).toBeVisible();

  const first = todos[0]!;
  const claim = await client.todo.claim.mutate({ agentId: "agent_e2e_pixel", todoId: first.id, ttlMs: 600_000 });
  expect(claim.claimed).toBe(true);

  const card = page.locator(`[data-lane="claimed"] [data-todo-id="${first.id}"]`);
  await expect(card).toBeVisible();
  await expect(card.locator('[data-field="owner"]')).toContainText("Pixel tab");
  await expect(card.locator('[data-field="owner"]')).toContainText(/\dm \d+s left/);
  await expect(page.locator('[data-lane="pending"] [data-todo-id]')).toHaveCount(2);
});

test("the attention queue shows an open gate and drops it when a member resolves it", async ({ page }) => {
  const client = apiClient();
  const goal = await client.goal.create.mutate({ title: "Pay a deposit", objective: "Hold the table", createdBy: "m_e2e" });
  const { gate } = await client.gate.open.mutate({ goalId: goal.id, question: "Pay the 20 EUR deposit to hold the table?", options: ["pay", "skip"], answerRoles: ["owner"] });
  await db.member.create({ data: { id: "m_e2e_owner", name: "Olive", role: "owner" } });

  await page.goto(webUrl);
  const item = page.locator('[data-testid="attention"] li', { hasText: "Pay the 20 EUR deposit to hold the table?" });
  await expect(item).toBeVisible();
  await expect(item).toContainText("Question for an owner");
  await expect(page.locator('[data-stream="live"]')).toBeVisible();

  await apiClient({ memberId: "m_e2e_owner" }).gate.resolve.mutate({ gateId: gate.id, decision: "answer", answer: "pay", rationale: "worth it" });
  await expect(item).toHaveCount(0);
});
