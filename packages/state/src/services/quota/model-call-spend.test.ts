// A model call is metered once, where it is made, in one transaction with its evidence: a direct endpoint's call
// (model_call `via: "runtime"`) is spent as the step record (or evidence.append) inserts its row; a proxied call's
// evidence is recorded by the settle that spends it. A retried record spends nothing again; a record that fails
// leaves neither the row nor its spend.
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedClaimed } from "../../testing/index.ts";
import type { StateError } from "../../domain/errors.ts";
import { recordStep } from "../run/record-step.ts";
import { startRun } from "../run/start-run.ts";
import { appendEvidence } from "../evidence/append-evidence.ts";
import { reserveQuota } from "./reserve-quota.ts";
import { settleQuota } from "./settle-quota.ts";

const t = useTestDatabase();
const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);
const call = (n: number, extra: Record<string, unknown> = {}) => ({ via: "runtime", role: "executor", model: "small", inputTokens: 100 * n, outputTokens: n, microUsd: 7 * n, latencyMs: 5, ...extra });

async function spentOn(goalId: string) {
  const spends = await t.db.quotaSpend.findMany({ where: { goalId } });
  return { rows: spends.length, tokens: spends.reduce((a, s) => a + s.tokens, 0), microUsd: spends.reduce((a, s) => a + Number(s.microUsd), 0) };
}

describe("a model call is metered with its evidence", () => {
  it("a direct endpoint's call is spent in the step record that records it, once, retried or not", async () => {
    const { goal, todo, agent, claim } = await seedClaimed(t.db);
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const record = (index: number, calls: Record<string, unknown>[]) =>
      recordStep(t.db, {
        runId: run.id,
        agentId: agent.id,
        todoId: todo.id,
        leaseKey: claim.lease.leaseKey,
        evidence: calls.map((data, k) => ({ idempotencyKey: `${run.id}:${index}:model_call:${k}`, kind: "model_call", stepIndex: index, summary: "a call", data })),
        step: { index, node: "executor", action: { type: "wait" }, outcome: { outcome: "ok" } },
      });
    await record(0, [call(1), call(2, { estimated: true })]);
    await record(0, [call(1), call(2, { estimated: true })]); // the client's retry
    await record(1, [call(3)]);
    expect(await spentOn(goal.id)).toEqual({ rows: 3, tokens: 101 + 202 + 303, microUsd: 7 + 14 + 21 });
    const spend = await t.db.quotaSpend.findFirstOrThrow({ where: { goalId: goal.id, key: `model_call:${run.id}:0:model_call:1` } });
    expect(spend).toMatchObject({ agentId: agent.id, runId: run.id, todoId: todo.id, steps: 0 });
    // A record the core refuses (a malformed row after the call) spends nothing: the row and its spend are one write.
    const bad = await err(record(2, [call(4), { ...call(5), inputTokens: -1 }]));
    expect(bad?.code).toBe("INVALID_INPUT");
    expect(await spentOn(goal.id)).toMatchObject({ rows: 3 });
  });

  it("evidence.append spends a runtime-metered call with its row, and refuses one that names no agent", async () => {
    const { goal, agent } = await seedClaimed(t.db);
    await appendEvidence(t.db, { goalId: goal.id, agentId: agent.id, kind: "model_call", summary: "planner", data: call(2, { role: "planner" }), idempotencyKey: `${goal.id}:plan` });
    expect(await spentOn(goal.id)).toEqual({ rows: 1, tokens: 202, microUsd: 14 });
    const anonymous = await err(appendEvidence(t.db, { goalId: goal.id, kind: "model_call", summary: "planner", data: call(1), idempotencyKey: `${goal.id}:plan2` }));
    expect(anonymous?.code).toBe("INVALID_INPUT");
    expect(anonymous?.message).toContain("agentId");
    // A proxied call's row is not spent again here: its settle spent it.
    await appendEvidence(t.db, { goalId: goal.id, agentId: agent.id, kind: "model_call", summary: "proxied", data: call(1, { via: "api" }), idempotencyKey: `${goal.id}:api` });
    expect(await spentOn(goal.id)).toMatchObject({ rows: 1 });
  });

  it("a proxied call's settle records its evidence with its spend; a repeat records neither again", async () => {
    const { goal, agent } = await seedClaimed(t.db);
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const key = `model:${goal.id}`;
    await reserveQuota(t.db, { key, goalId: goal.id, agentId: agent.id, runId: run.id, inputTokens: 500, maxOutputTokens: 100, microUsdPerInputToken: 2, microUsdPerOutputToken: 10, ttlMs: 60_000 });
    const evidence = { idempotencyKey: key, stepIndex: 3, summary: "executor call", data: { ...call(4), via: "api", estimated: true } };
    await settleQuota(t.db, { key, spent: { tokens: 404, microUsd: 28 }, evidence });
    await settleQuota(t.db, { key, spent: { tokens: 404, microUsd: 28 }, evidence });
    expect(await spentOn(goal.id)).toEqual({ rows: 1, tokens: 404, microUsd: 28 });
    const rows = await t.db.evidence.findMany({ where: { goalId: goal.id, kind: "model_call" } });
    expect(rows.map((r) => [r.runId, r.agentId, r.stepIndex, (r.data as { estimated?: boolean }).estimated])).toEqual([[run.id, agent.id, 3, true]]);
    // A runtime-metered row is no settle's: it would be spent twice.
    await reserveQuota(t.db, { key: `${key}:2`, goalId: goal.id, agentId: agent.id, inputTokens: 5, ttlMs: 60_000 });
    const twice = await err(settleQuota(t.db, { key: `${key}:2`, spent: { tokens: 5 }, evidence: { ...evidence, idempotencyKey: `${key}:2`, data: call(1) } }));
    expect(twice?.code).toBe("INVALID_INPUT");
    expect(twice?.message).toContain("evidence.data.via");
  });
});
