// Claim throughput: PhoneLoop's state core against pg-boss on the same embedded Postgres (real durability:
// fsync and synchronous_commit on — not the test server's fast mode).
//
// What each side does per item, with 32 concurrent workers and 2,000 items each:
// - ours:    claimNext({ agentId })  — one statement: the first unfinished todo of each active goal (todos run in
//            order, so each item is its own goal with one todo), the oldest eligible one FOR UPDATE SKIP LOCKED
//            with requiredCapabilities ⊆ the agent's, INSERT Lease, UPDATE Todo, INSERT Event (commit 1);
//            then completeTodo({ todoId, agentId, leaseKey }) — one statement: check the lease (key, owner,
//            unexpired) and fence on the todo's version, UPDATE Todo → done, UPDATE Lease → released, INSERT
//            Event (commit 2). Both inputs are zod-validated, and both announce their Event with pg_notify right after
//            commit, as in production (see prisma/migrations/*_notify_after_commit).
// - pg-boss: boss.fetch(queue, { batchSize: 1 }) — one job per call (its SKIP LOCKED update, commit 1);
//            then boss.complete(queue, id) (commit 2).
// Both sides use a pool of 32 connections. The machine may be shared, so the two sides run in alternating
// rounds (4 × 500 items each, order swapped every round) and each figure is total items / total time. Latencies (p50/p99) are of the claim call alone (ours) — the fetch
// call's are printed on the line above for comparison. double_claims counts todos that more than one worker
// received, plus todos with more than one lease row.
//
// Run: npx tsx bench/claims.ts   (or npm run bench -- claims)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import PgBoss from "pg-boss";
import { applyMigrations, claimNext, completeTodo, createDb, startEmbeddedPostgres, type Db } from "@phoneloop/state";
import { seedAgent, seedGoal, seedTodos } from "@phoneloop/state/testing";

const WORKERS = 32;
const ITEMS = 2_000;
const WARMUP = 64;
const ROUNDS = 4;

interface Side {
  items: number;
  seconds: number;
  latencies: number[];
  doubles: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function runOurs(db: Db, items: number): Promise<Side> {
  // Earlier rounds' goals stay active with every todo done: claimNext passes over them, as it would in production.
  const goalIds: string[] = [];
  for (let k = 0; k < items; k++) {
    const goal = await seedGoal(db);
    await seedTodos(db, goal.id, 1, { requiredCapabilities: ["android"] });
    goalIds.push(goal.id);
  }
  const agents = await Promise.all(Array.from({ length: WORKERS }, () => seedAgent(db, { capabilities: ["android", "camera"] })));
  const latencies: number[] = [];
  const seen = new Map<string, number>();
  const start = performance.now();
  await Promise.all(
    agents.map(async (agent) => {
      for (;;) {
        const t0 = performance.now();
        const r = await claimNext(db, { agentId: agent.id });
        latencies.push(performance.now() - t0);
        if (!r.claimed) return;
        seen.set(r.todo.id, (seen.get(r.todo.id) ?? 0) + 1);
        await completeTodo(db, { todoId: r.todo.id, agentId: agent.id, leaseKey: r.lease.leaseKey });
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const dbDoubles = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM (SELECT "todoId" FROM "Lease" l JOIN "Todo" t ON t."id" = l."todoId" WHERE t."goalId" = ANY(${goalIds}) GROUP BY "todoId" HAVING count(*) > 1) x`;
  const done = await db.todo.count({ where: { goalId: { in: goalIds }, state: "done" } });
  if (done !== items || seen.size !== items) throw new Error(`ours: ${done} done, ${seen.size} claimed of ${items}`);
  const doubles = [...seen.values()].filter((n) => n > 1).length + Number(dbDoubles[0]!.n);
  return { items, seconds: elapsed, latencies, doubles };
}

async function runPgBoss(boss: PgBoss, items: number, queue: string): Promise<Side> {
  await boss.createQueue(queue);
  for (let k = 0; k < items; k += 500) {
    await boss.insert(Array.from({ length: Math.min(500, items - k) }, (_, n) => ({ name: queue, data: { n: k + n } })));
  }
  const latencies: number[] = [];
  const seen = new Map<string, number>();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      for (;;) {
        const t0 = performance.now();
        const jobs = await boss.fetch(queue, { batchSize: 1 });
        latencies.push(performance.now() - t0);
        const job = jobs[0];
        if (!job) return;
        seen.set(job.id, (seen.get(job.id) ?? 0) + 1);
        await boss.complete(queue, job.id);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  if (seen.size !== items) throw new Error(`pg-boss: ${seen.size} of ${items} jobs fetched`);
  return { items, seconds: elapsed, latencies, doubles: [...seen.values()].filter((n) => n > 1).length };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "phoneloop-bench-pg-"));
  const pg = await startEmbeddedPostgres({ dataDir: join(dir, "data"), ephemeral: true, fast: false });
  let db: Db | undefined;
  let boss: PgBoss | undefined;
  try {
    const url = pg.urlFor("phoneloop_bench");
    await applyMigrations(url);
    db = createDb(url, { max: WORKERS });
    boss = new PgBoss({ connectionString: url, max: WORKERS, supervise: false, schedule: false });
    boss.on("error", (e) => console.error("pg-boss:", e));
    await boss.start();

    // Warm both paths (connections, plans, caches) before measuring.
    await runOurs(db, WARMUP);
    await runPgBoss(boss, WARMUP, "bench-warmup");

    const oursRounds: Side[] = [];
    const theirRounds: Side[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const n = ITEMS / ROUNDS;
      if (round % 2 === 0) {
        oursRounds.push(await runOurs(db, n));
        theirRounds.push(await runPgBoss(boss, n, `bench-claims-${round}`));
      } else {
        theirRounds.push(await runPgBoss(boss, n, `bench-claims-${round}`));
        oursRounds.push(await runOurs(db, n));
      }
    }
    const total = (sides: Side[]) => {
      const items = sides.reduce((a, x) => a + x.items, 0);
      const seconds = sides.reduce((a, x) => a + x.seconds, 0);
      return { perS: items / seconds, latencies: sides.flatMap((x) => x.latencies).sort((a, b) => a - b), doubles: sides.reduce((a, x) => a + x.doubles, 0) };
    };
    const ours = total(oursRounds);
    const theirs = total(theirRounds);
    const round = (n: number, d = 2) => Number(n.toFixed(d));
    console.log(`ours: ${ITEMS} todos claim+complete by ${WORKERS} workers; pg-boss: ${ITEMS} jobs fetch(batchSize 1)+complete by ${WORKERS} workers`);
    console.log(`pgboss_fetch_p50_ms=${round(percentile(theirs.latencies, 50))} pgboss_fetch_p99_ms=${round(percentile(theirs.latencies, 99))} pgboss_double_fetches=${theirs.doubles}`);
    console.log(
      `claims_per_s=${round(ours.perS, 1)} p50_ms=${round(percentile(ours.latencies, 50))} p99_ms=${round(percentile(ours.latencies, 99))} ` +
        `double_claims=${ours.doubles} pgboss_jobs_per_s=${round(theirs.perS, 1)} ratio=${round(ours.perS / theirs.perS)}`,
    );
  } finally {
    await boss?.stop({ graceful: false, wait: true }).catch(() => {});
    await db?.$disconnect();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
