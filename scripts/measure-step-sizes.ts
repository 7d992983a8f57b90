// `npx tsx scripts/measure-step-sizes.ts [steps]`: what 1,000 executor steps leave in Postgres, table by table, for
// docs/deploy.md. A throwaway embedded Postgres (durable writes), the real API server in this process, and an agent
// through packages/client writing what an executor step writes: write-ahead (the action), a screenshot upload (a
// 1080×2400 WebP, different each step), write-back (the observation naming it, the step row, the checkpoint), a
// heartbeat. Prints pg_total_relation_size (table, indexes and TOAST) before and after, per 1,000 steps.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { createApiServer } from "../apps/api/src/api-server.ts";
import { leaseRefOf } from "../packages/agent/src/ports.ts";
import { createApiClient, createControlPlane } from "../packages/client/src/index.ts";
import { applyMigrations, createDb, issueAgentToken, startEmbeddedPostgres } from "../packages/state/src/index.ts";
import { rid, seedGoal, seedTodos, seedWorkspace } from "../packages/state/src/testing/index.ts";

const steps = Number(process.argv[2] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), "phoneloop-sizes-"));
const pg = await startEmbeddedPostgres({ dataDir: join(dir, "data"), ephemeral: true });
const url = pg.urlFor("postgres");
await applyMigrations(url);
const db = createDb(url, { max: 8 });
const api = await createApiServer({ db, databaseUrl: url, port: 0, host: "127.0.0.1" });

/** A phone-sized screen: a status bar, a toolbar, rows of list items with text-like stripes; varies with `n`. */
async function screenshot(n: number): Promise<Uint8Array> {
  const rows = Array.from({ length: 14 }, (_, r) => {
    const y = 260 + r * 150;
    const w = 300 + ((n * 37 + r * 91) % 600);
    return `<rect x="40" y="${y}" width="120" height="120" rx="16" fill="hsl(${(n * 13 + r * 29) % 360},55%,60%)"/><rect x="190" y="${y + 20}" width="${w}" height="28" fill="#333"/><rect x="190" y="${y + 70}" width="${w - 120}" height="22" fill="#999"/>`;
  }).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1080" height="2400"><rect width="1080" height="2400" fill="#fafafa"/><rect width="1080" height="80" fill="#222"/><rect y="80" width="1080" height="160" fill="#3367d6"/><text x="40" y="190" font-size="64" fill="#fff">Item ${n}</text>${rows}</svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).webp({ quality: 80 }).toBuffer());
}

const TABLES = ["Event", "Evidence", "Step", "Run", "Blob", "WorkspaceBlob", "BlobBytes", "Todo", "Lease", "Agent"];
async function sizes(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of TABLES) {
    const r = await db.$queryRawUnsafe<{ size: bigint | null }[]>(`SELECT pg_total_relation_size(to_regclass('"${t}"')) AS size`);
    if (r[0]?.size !== null && r[0]?.size !== undefined) out.set(t, Number(r[0].size));
  }
  return out;
}

try {
  const { workspace, admin } = await seedWorkspace(db);
  const goal = await seedGoal(db, { workspaceId: workspace.id });
  await seedTodos(db, goal.id, 1);
  const { token } = await issueAgentToken(db, { workspaceId: workspace.id, name: "sizes", issuedBy: admin.id });
  const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
  const cp = createControlPlane(client, { apiUrl: api.url });
  const { agentId } = await cp.registerAgent({ id: rid("agent"), name: "sizes", kind: "headless", capabilities: ["phone"] });
  const claim = await cp.claimNext({ agentId, goalId: goal.id, ttlMs: 3_600_000 });
  if (!claim.claimed) throw new Error(`no claim: ${claim.reason}`);
  const lease = leaseRefOf(claim.lease);
  const todoId = claim.todo.id;
  await cp.startTodo(lease);
  const run = await cp.startRun({ goalId: goal.id, agentId });
  await db.$executeRawUnsafe(`VACUUM ANALYZE`);
  const before = await sizes();
  let shotBytes = 0;
  for (let i = 0; i < steps; i++) {
    const action = { type: "click", element: String(i % 40) };
    await cp.recordStep({ runId: run.id, agentId, todoId, lease, evidence: [{ idempotencyKey: `${run.id}:act:${i}`, kind: "action", stepIndex: i, summary: `click [${i % 40}]`, data: { action } }], checkpoint: { node: "executor", step: i, phase: "ahead" } });
    const bytes = await screenshot(i);
    shotBytes += bytes.byteLength;
    const { sha256 } = await cp.putBlob({ bytes, mime: "image/webp" });
    await cp.recordStep({
      runId: run.id,
      agentId,
      todoId,
      lease,
      evidence: [{ idempotencyKey: `${run.id}:obs:${i}`, kind: "observation", stepIndex: i, summary: `com.example: 14 elements`, data: { app: "com.example" }, blobSha256: sha256 }],
      step: { index: i, node: "executor", todoId, action, outcome: { outcome: "ok", app: "com.example", timings: { capture: 120, model: 900, act: 80 } }, anomalies: [], tokens: 1200 },
      checkpoint: { node: "executor", step: i + 1, phase: "back" },
    });
    await cp.heartbeatAgent(agentId);
    if ((i + 1) % 100 === 0) process.stderr.write(`${i + 1} steps\n`);
  }
  await db.$executeRawUnsafe(`VACUUM ANALYZE`);
  const after = await sizes();
  const per1000 = (n: number) => Math.round((n * 1000) / steps / 1024);
  console.log(`steps=${steps} screenshot_avg_bytes=${Math.round(shotBytes / steps)}`);
  console.log("| table | size per 1,000 steps |");
  console.log("| --- | --- |");
  let total = 0;
  for (const [t, s] of after) {
    const d = s - (before.get(t) ?? 0);
    total += d;
    console.log(`| ${t} | ${per1000(d)} KiB |`);
  }
  console.log(`| all of these | ${per1000(total)} KiB |`);
} finally {
  await api.close({ graceMs: 1_000 });
  await db.$disconnect();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
