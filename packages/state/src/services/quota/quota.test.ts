import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, rid, seedAgent, seedGate, seedGoal, seedTodos } from "../../testing/index.ts";
import { StateError } from "../../domain/errors.ts";
import { setQuotaPolicy } from "./set-quota-policy.ts";
import { spendQuota } from "./spend-quota.ts";
import { shouldRun } from "./should-run.ts";
import { reserveQuota } from "./reserve-quota.ts";
import { settleQuota } from "./settle-quota.ts";
import { pauseGoal } from "../goal/pause-goal.ts";

const t = useTestDatabase({ poolSize: 60 });

const settle = (ps: Promise<unknown>[]) => Promise.allSettled(ps);

describe("quota spend", () => {
  it("50 concurrent spends with 10 distinct keys record exactly 10 spends", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 1000, maxTokens: 1_000_000, maxMicroUsd: 10_000_000 });
    const keys = Array.from({ length: 10 }, (_, k) => `${goal.id}-turn-${k}`);
    const results = await settle(Array.from({ length: 50 }, (_, n) => spendQuota(t.db, { key: keys[n % 10]!, goalId: goal.id, agentId: agent.id, steps: 1, tokens: 100, microUsd: 250 })));
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    const spends = await t.db.quotaSpend.findMany({ where: { goalId: goal.id } });
    expect(spends).toHaveLength(10);
    expect(new Set(spends.map((s) => s.key))).toEqual(new Set(keys));
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: "quota.spend" } })).toBe(10);
    const replays = results.filter((r) => r.status === "fulfilled" && (r.value as { duplicate: boolean }).duplicate);
    expect(replays).toHaveLength(40);
  });

  it("never exceeds the limit under a race when the limit is smaller than the total asked", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 7, maxMicroUsd: 1_000 });
    await setQuotaPolicy(t.db, { scope: "agent", agentId: agent.id, windowMs: 3_600_000, maxTokens: 5_000 });
    const keys = Array.from({ length: 10 }, (_, k) => `${goal.id}-k${k}`);
    // 10 keys × 1 step = 10 steps asked against a limit of 7; each key is tried 5 times at once.
    const results = await settle(Array.from({ length: 50 }, (_, n) => spendQuota(t.db, { key: keys[n % 10]!, goalId: goal.id, agentId: agent.id, steps: 1, tokens: 400, microUsd: 100 })));
    const spends = await t.db.quotaSpend.findMany({ where: { goalId: goal.id } });
    expect(spends).toHaveLength(7);
    expect(spends.reduce((a, s) => a + s.steps, 0)).toBeLessThanOrEqual(7);
    expect(spends.reduce((a, s) => a + s.tokens, 0)).toBeLessThanOrEqual(5_000);
    const rejected = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason as StateError);
    expect(rejected.length).toBeGreaterThan(0);
    for (const e of rejected) {
      expect(e.code).toBe("QUOTA_EXCEEDED");
      expect(e.details.remaining).toMatchObject({ steps: 0 });
      expect(e.message).toContain("0 of 7 steps");
    }
    // Keys whose spend went through answer with the same row on every repeat.
    const okKeys = new Set(spends.map((s) => s.key));
    for (const [n, r] of results.entries()) if (okKeys.has(keys[n % 10]!)) expect(r.status).toBe("fulfilled");
  });

  it("a spend that would exceed tells what is left; the rolling window frees room as time passes", async () => {
    const clock = manualClock(new Date("2026-11-29T08:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const agent = await seedAgent(t.db, {}, ctx);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 60_000, maxTokens: 1000 }, ctx);
    await spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, tokens: 700 }, ctx);
    clock.advance(30_000);
    const e = await spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, tokens: 400 }, ctx).catch((x: StateError) => x);
    expect(e).toBeInstanceOf(StateError);
    expect((e as StateError).code).toBe("QUOTA_EXCEEDED");
    expect((e as StateError).details.remaining).toMatchObject({ tokens: 300 });
    expect((e as StateError).details.retryAfterMs).toBe(30_000);
    expect((await shouldRun(t.db, { goalId: goal.id, agentId: agent.id, estimate: { tokens: 400 } }, ctx))).toMatchObject({ decision: "skip", reason: "throttled", retryAfterMs: 30_000 });
    clock.advance(30_001);
    const ok = await spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, tokens: 400 }, ctx);
    expect(ok.duplicate).toBe(false);
  });
});

describe("quota reservation", () => {
  const call = (goalId: string, agentId: string, more: Partial<Parameters<typeof reserveQuota>[1]> = {}) => ({ key: rid("model"), goalId, agentId, inputTokens: 30, ttlMs: 60_000, ...more });

  it("caps the reply by what is left and refuses a call whose prompt and one reply token do not fit, naming the quota", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxTokens: 100 });
    const first = await reserveQuota(t.db, call(goal.id, agent.id, { maxOutputTokens: 250 }));
    expect(first.reservation).toMatchObject({ tokens: 100, maxOutputTokens: 70 });
    const e = await reserveQuota(t.db, call(goal.id, agent.id, { inputTokens: 1 })).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("QUOTA_EXCEEDED");
    expect((e as StateError).message).toContain("0 of 100 tokens left in the goal");
    expect((e as StateError).message).toContain("100 tokens held by model calls in flight");
    expect((e as StateError).message).toContain("quota.setPolicy");
    // Settled at its real usage, the difference is free again.
    const settled = await settleQuota(t.db, { key: first.reservation.key, spent: { tokens: 45 } });
    expect(settled).toMatchObject({ spend: { tokens: 45 }, released: { tokens: 55 }, duplicate: false });
    expect((await settleQuota(t.db, { key: first.reservation.key, spent: { tokens: 45 } })).duplicate).toBe(true);
    const next = await reserveQuota(t.db, call(goal.id, agent.id));
    expect(next.reservation).toMatchObject({ tokens: 55, maxOutputTokens: 25 });
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: { in: ["quota.reserve", "quota.settle"] } } })).toBe(3);
  });

  it("caps by money at the role's prices", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    await setQuotaPolicy(t.db, { scope: "agent", agentId: agent.id, windowMs: 3_600_000, maxMicroUsd: 1_000 });
    const r = await reserveQuota(t.db, call(goal.id, agent.id, { inputTokens: 40, maxOutputTokens: 250, microUsdPerInputToken: 2, microUsdPerOutputToken: 10 }));
    expect(r.reservation).toMatchObject({ maxOutputTokens: 92, microUsd: 40 * 2 + 92 * 10 });
    const e = await reserveQuota(t.db, call(goal.id, agent.id, { inputTokens: 1, microUsdPerInputToken: 2, microUsdPerOutputToken: 10 })).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("QUOTA_EXCEEDED");
    expect((e as StateError).details.over).toEqual(["microUsd"]);
  });

  it("twenty concurrent reservations on room for two hold exactly two", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxTokens: 100 });
    const results = await settle(Array.from({ length: 20 }, () => reserveQuota(t.db, call(goal.id, agent.id, { maxOutputTokens: 20 }))));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
    for (const r of results) if (r.status === "rejected") expect((r.reason as StateError).code).toBe("QUOTA_EXCEEDED");
    const held = await t.db.quotaReservation.aggregate({ where: { goalId: goal.id }, _sum: { tokens: true } });
    expect(held._sum.tokens).toBe(100);
  });

  it("a released reservation frees its room; one nobody settles stops counting when it expires", async () => {
    const clock = manualClock(new Date("2026-11-29T08:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const agent = await seedAgent(t.db, {}, ctx);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxTokens: 100 }, ctx);
    const failed = await reserveQuota(t.db, call(goal.id, agent.id), ctx);
    expect((await settleQuota(t.db, { key: failed.reservation.key }, ctx)).released).toEqual({ tokens: 100, microUsd: 0 });
    expect(await settleQuota(t.db, { key: failed.reservation.key, spent: { tokens: 5 } }, ctx)).toMatchObject({ spend: null, duplicate: true });
    expect((await settleQuota(t.db, { key: rid("never-reserved"), spent: { tokens: 5 } }, ctx).catch((e: StateError) => e)) as StateError).toMatchObject({ code: "NOT_FOUND" });
    const orphan = await reserveQuota(t.db, call(goal.id, agent.id), ctx);
    expect(orphan.reservation.tokens).toBe(100);
    expect(await shouldRun(t.db, { goalId: goal.id, agentId: agent.id }, ctx)).toMatchObject({ decision: "skip", reason: "exhausted" });
    clock.advance(60_001);
    expect(await shouldRun(t.db, { goalId: goal.id, agentId: agent.id }, ctx)).toMatchObject({ decision: "run" });
    expect((await reserveQuota(t.db, call(goal.id, agent.id), ctx)).reservation.tokens).toBe(100);
  });

  it("a direct spend counts the calls in flight", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxTokens: 100 });
    await reserveQuota(t.db, call(goal.id, agent.id, { maxOutputTokens: 50 }));
    const e = await spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, tokens: 21 }).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("QUOTA_EXCEEDED");
    expect((await spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, tokens: 20 })).duplicate).toBe(false);
  });
});

describe("should-run", () => {
  it("answers run, or skip with the reason: paused, gate waiting, exhausted", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    const [todo] = await seedTodos(t.db, goal.id, 1);
    expect((await shouldRun(t.db, { goalId: goal.id, agentId: agent.id, todoId: todo!.id })).decision).toBe("run");

    await setQuotaPolicy(t.db, { scope: "agent", agentId: agent.id, windowMs: 60_000, maxSteps: 1 });
    await spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, steps: 1 });
    expect(await shouldRun(t.db, { goalId: goal.id, agentId: agent.id })).toMatchObject({ decision: "skip", reason: "exhausted" });

    const gate = await seedGate(t.db, goal.id, { todoId: todo!.id });
    const gated = await shouldRun(t.db, { goalId: goal.id, agentId: agent.id, todoId: todo!.id });
    expect(gated).toMatchObject({ decision: "skip", reason: "gate_waiting" });
    if (gated.decision === "skip") expect(gated.message).toContain(gate.question);

    await pauseGoal(t.db, { goalId: goal.id });
    expect(await shouldRun(t.db, { goalId: goal.id, agentId: agent.id })).toMatchObject({ decision: "skip", reason: "goal_paused" });
  });

  it("keeps one policy per goal (setting again replaces it)", async () => {
    const goal = await seedGoal(t.db);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 1000, maxSteps: 1 });
    const p = await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 2000, maxSteps: 9 });
    expect(p).toMatchObject({ windowMs: 2000, maxSteps: 9 });
    expect(await t.db.quotaPolicy.count({ where: { goalId: goal.id } })).toBe(1);
    const bad = await setQuotaPolicy(t.db, { scope: "goal", agentId: "a", windowMs: 1 }).catch((e: StateError) => e);
    expect((bad as StateError).code).toBe("INVALID_INPUT");
    expect((bad as StateError).message).toContain("scope");
  });
});
