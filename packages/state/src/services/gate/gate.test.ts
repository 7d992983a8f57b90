import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, seedGate, seedGoal, seedMember, seedWorkspace } from "../../testing/index.ts";
import { type StateError } from "../../domain/errors.ts";
import { resolveGate } from "./resolve-gate.ts";
import { expireGate } from "./expire-gate.ts";
import { openGate } from "./open-gate.ts";
import { appendEvidence } from "../evidence/append-evidence.ts";

const t = useTestDatabase();

describe("gates", () => {
  it("two users resolve one gate at the same moment: exactly one decision, the other gets CONFLICT", async () => {
    const goal = await seedGoal(t.db);
    const gate = await seedGate(t.db, goal.id);
    const [alice, bob] = await Promise.all([seedMember(t.db, "admin", undefined, "Alice"), seedMember(t.db, "approver", undefined, "Bob")]);
    const results = await Promise.allSettled([
      resolveGate(t.db, { gateId: gate.id, userId: alice.userId, decision: "approve", rationale: "the deposit is refundable" }),
      resolveGate(t.db, { gateId: gate.id, userId: bob.userId, decision: "deny", rationale: "no payments without a budget" }),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason as StateError);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.code).toBe("CONFLICT");
    const final = await t.db.gate.findUniqueOrThrow({ where: { id: gate.id } });
    expect(lost[0]!.message).toContain(`by ${final.resolvedBy}`);
    expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "gate.resolve" } })).toBe(1);
  });

  it("only a member whose role may answer can resolve (the workspace's rule); answers must be one of the options", async () => {
    const goal = await seedGoal(t.db);
    const ev = await appendEvidence(t.db, { goalId: goal.id, kind: "anomaly", summary: "Payment screen appeared", idempotencyKey: `${goal.id}-e1` });
    const { gate } = await openGate(t.db, { goalId: goal.id, question: "Which card should pay the deposit?", options: ["visa", "amex"], evidenceIds: [ev.evidence.id] });
    const viewer = await seedMember(t.db, "viewer");
    const owner = await seedMember(t.db, "approver");
    const forbidden = await resolveGate(t.db, { gateId: gate.id, userId: viewer.userId, decision: "answer", answer: "visa", rationale: "r" }).catch((e: StateError) => e);
    expect((forbidden as StateError).code).toBe("FORBIDDEN");
    expect((forbidden as StateError).message).toContain("only by: approver, admin");
    const badOption = await resolveGate(t.db, { gateId: gate.id, userId: owner.userId, decision: "answer", answer: "cash", rationale: "r" }).catch((e: StateError) => e);
    expect((badOption as StateError).code).toBe("INVALID_INPUT");
    const done = await resolveGate(t.db, { gateId: gate.id, userId: owner.userId, decision: "answer", answer: "amex", rationale: "points" });
    expect(done).toMatchObject({ status: "answered", answer: "amex", resolvedBy: owner.userId });
  });

  it("expires only after its expiry, and an expired gate cannot be resolved", async () => {
    const clock = manualClock(new Date("2026-11-29T09:00:00Z"));
    const goal = await seedGoal(t.db, {}, { clock });
    const gate = await seedGate(t.db, goal.id, { ttlMs: 60_000 }, { clock });
    expect((await expireGate(t.db, { gateId: gate.id }, { clock }).catch((e: StateError) => e) as StateError).code).toBe("PRECONDITION_FAILED");
    clock.advance(60_000);
    expect((await expireGate(t.db, { gateId: gate.id }, { clock })).status).toBe("expired");
    const owner = await seedMember(t.db, "approver");
    const late = await resolveGate(t.db, { gateId: gate.id, userId: owner.userId, decision: "approve", rationale: "ok" }).catch((e: StateError) => e);
    expect((late as StateError).code).toBe("CONFLICT");
    expect((late as StateError).message).toContain("expired");
  });

  it("opening with a used key returns the first gate, never a second; the key on another question is a CONFLICT", async () => {
    const goal = await seedGoal(t.db);
    const key = `${goal.id}:ask-party-size`;
    const ask = { goalId: goal.id, question: "How many people is the table for?", options: ["2", "4"], idempotencyKey: key };
    const [one, two] = await Promise.all([openGate(t.db, ask), openGate(t.db, ask)]);
    expect(one.gate.id).toBe(two.gate.id);
    expect([one.created, two.created].sort()).toEqual([false, true]);
    const again = await openGate(t.db, ask);
    expect(again).toMatchObject({ created: false, gate: { id: one.gate.id, idempotencyKey: key } });
    expect(await t.db.gate.count({ where: { goalId: goal.id } })).toBe(1);
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: "gate.open" } })).toBe(1);
    const other = await openGate(t.db, { ...ask, question: "Which evening suits everyone?" }).catch((e: StateError) => e);
    expect((other as StateError).code).toBe("CONFLICT");
    expect((other as StateError).message).toContain(one.gate.id);
    const elsewhere = await seedGoal(t.db);
    expect(((await openGate(t.db, { ...ask, goalId: elsewhere.id }).catch((e: StateError) => e)) as StateError).code).toBe("CONFLICT");
  });

  it("a member of another workspace finds no such gate; the opener cannot choose who answers", async () => {
    const goal = await seedGoal(t.db);
    const { gate } = await openGate(t.db, { goalId: goal.id, question: "Pay the deposit now?", answerRoles: ["viewer"] } as Parameters<typeof openGate>[1]);
    expect(gate.answerRoles).toEqual(["approver", "admin"]);
    const { workspace } = await seedWorkspace(t.db, "Elsewhere");
    const outsider = await seedMember(t.db, "admin", workspace.id);
    const e = await resolveGate(t.db, { gateId: gate.id, userId: outsider.userId, decision: "approve", rationale: "r" }).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("NOT_FOUND");
  });

  it("refuses a vague question", async () => {
    const goal = await seedGoal(t.db);
    const e = await openGate(t.db, { goalId: goal.id, question: "waiting" }).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("INVALID_INPUT");
    expect((e as StateError).message).toContain("question");
  });
});

describe("gate and its todo", () => {
  it("an answered gate reopens its blocked todo (in the same event); a denied one leaves it blocked", async () => {
    const { seedTodos } = await import("../../testing/index.ts");
    const { blockTodo } = await import("../todo/block-todo.ts");
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    await blockTodo(t.db, { todoId: a!.id, reason: "party size unknown" });
    await blockTodo(t.db, { todoId: b!.id, reason: "payment needs approval" });
    const ga = await seedGate(t.db, goal.id, { todoId: a!.id, question: "How many people?", options: ["2", "4"] });
    const gb = await seedGate(t.db, goal.id, { todoId: b!.id });
    const owner = await seedMember(t.db, "approver");
    const eventsBefore = await t.db.event.count({ where: { goalId: goal.id } });
    await resolveGate(t.db, { gateId: ga.id, userId: owner.userId, decision: "answer", answer: "4", rationale: "family dinner" });
    await resolveGate(t.db, { gateId: gb.id, userId: owner.userId, decision: "deny", rationale: "no deposits" });
    expect(await t.db.event.count({ where: { goalId: goal.id } })).toBe(eventsBefore + 2);
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: a!.id } })).state).toBe("pending");
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: b!.id } })).state).toBe("blocked");
    const ev = await t.db.event.findFirstOrThrow({ where: { subjectId: ga.id, operator: "gate.resolve" } });
    expect(ev.payload).toMatchObject({ todo: { id: a!.id, from: "blocked", to: "pending" } });
  });
});
