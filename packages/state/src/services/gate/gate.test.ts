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
    const ev = await appendEvidence(t.db, { goalId: goal.id, kind: "anomaly", summary: "Payment screen appeared", data: { kind: "no_change" }, idempotencyKey: `${goal.id}-e1` });
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
  it("a gate on a todo blocks it in the same transaction: a claim racing the open never holds the todo while the gate is open", async () => {
    const { seedTodos, seedAgent } = await import("../../testing/index.ts");
    const { claimTodo } = await import("../todo/claim-todo.ts");
    const goal = await seedGoal(t.db);
    const todos = await seedTodos(t.db, goal.id, 8);
    const agent = await seedAgent(t.db);
    for (const todo of todos) {
      const [opened, claim] = await Promise.all([
        openGate(t.db, { goalId: goal.id, todoId: todo.id, question: "Pay the 5 EUR deposit to hold the table?", options: ["approve", "deny"] }),
        claimTodo(t.db, { agentId: agent.id, todoId: todo.id, ttlMs: 60_000 }).catch((e: StateError) => e),
      ]);
      // Whichever came first, the gate is open and nobody holds the todo: a claim before the open had its lease
      // ended by the block; a claim after it found the todo blocked.
      expect(opened.gate.status).toBe("open");
      expect((await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } })).state).toBe("blocked");
      expect(await t.db.lease.count({ where: { todoId: todo.id, status: "active" } })).toBe(0);
      if ("code" in claim) expect(claim.message).toMatch(/it is blocked/);
    }
    // Afterwards nobody can claim it until the gate is answered.
    const late = await claimTodo(t.db, { agentId: agent.id, todoId: todos[0]!.id, ttlMs: 60_000 }).catch((e: StateError) => e);
    expect((late as StateError).code).toBe("ILLEGAL_TRANSITION");
  });

  it("the gate and the block commit both or neither: a todo that cannot be blocked opens no gate", async () => {
    const { seedClaimed } = await import("../../testing/index.ts");
    const { recordTurnResult } = await import("../turn/record-turn-result.ts");
    const { goal, todo, agent, claim } = await seedClaimed(t.db);
    await recordTurnResult(t.db, { idempotencyKey: `${todo.id}:done`, todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey, kind: "validated_completion", summary: "booked" });
    // The gate row is written before the block inside the transaction; the illegal block undoes it.
    const e = await openGate(t.db, { goalId: goal.id, todoId: todo.id, question: "Pay the 5 EUR deposit to hold the table?", options: ["approve", "deny"] }).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("ILLEGAL_TRANSITION");
    expect(await t.db.gate.count({ where: { todoId: todo.id } })).toBe(0);
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: "gate.open" } })).toBe(0);
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } })).state).toBe("done");
  });

  it("the holder's gate ends its lease and stores what it asks (kind, tier, action, policy); a stale lease opens none", async () => {
    const { seedClaimed } = await import("../../testing/index.ts");
    const { claimTodo } = await import("../todo/claim-todo.ts");
    const { goal, todo, agent, claim } = await seedClaimed(t.db);
    const stale = await openGate(t.db, { goalId: goal.id, todoId: todo.id, question: "Tap Pay 20 EUR in the booking app?", options: ["approve", "deny"], agentId: agent.id, leaseKey: "not-the-lease-key" }).catch((x: StateError) => x);
    expect((stale as StateError).code).toBe("CONFLICT");
    expect(await t.db.gate.count({ where: { todoId: todo.id } })).toBe(0);
    const policy = { ruleId: "money.pay_verb", evidence: ['the button reads "Pay 20 EUR"'], policyVersion: "builtin-2026.11" };
    const { gate } = await openGate(t.db, {
      goalId: goal.id,
      todoId: todo.id,
      question: "Tap Pay 20 EUR in the booking app?",
      options: ["approve", "deny"],
      kind: "approval",
      tier: "high_risk",
      action: { type: "click", element: "7" },
      policy,
      agentId: agent.id,
      leaseKey: claim.lease.leaseKey,
    });
    expect(gate).toMatchObject({ kind: "approval", tier: "high_risk", action: { type: "click", element: "7" }, policy });
    expect(await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } })).toMatchObject({ state: "blocked", reason: expect.stringContaining(gate.id) });
    expect((await t.db.lease.findUniqueOrThrow({ where: { id: claim.lease.id } })).status).toBe("released");
    const ev = await t.db.event.findFirstOrThrow({ where: { subjectId: gate.id, operator: "gate.open" } });
    expect(ev.payload).toMatchObject({ kind: "approval", tier: "high_risk", todo: { id: todo.id, from: "claimed", to: "blocked" } });
    expect(((await claimTodo(t.db, { agentId: agent.id, todoId: todo.id, ttlMs: 60_000 }).catch((x: StateError) => x)) as StateError).code).toBe("ILLEGAL_TRANSITION");
  });

  it("what a gate is reads back as stored: gate.get and the attention queue carry its kind, gate.get its tier, action and policy", async () => {
    const { gateDetail } = await import("../../projections/gate-detail.ts");
    const { attentionQueue } = await import("../../projections/attention-queue.ts");
    const goal = await seedGoal(t.db);
    const policy = { ruleId: "money.pay_verb", evidence: ['the button reads "Pay 20 EUR"'], policyVersion: "builtin-2026.11" };
    const { gate } = await openGate(t.db, { goalId: goal.id, question: "Tap Pay 20 EUR in the booking app?", options: ["approve", "deny"], kind: "approval", tier: "high_risk", action: { type: "click", element: "7" }, policy });
    // A question whose only options read like an approval is still a question: the stored kind wins over the options.
    const { gate: asked } = await openGate(t.db, { goalId: goal.id, question: "Should the agent approve or deny the invite?", options: ["approve", "deny"], kind: "question", tier: "question" });
    expect(await gateDetail(t.db, { gateId: gate.id })).toMatchObject({ kind: "approval", tier: "high_risk", action: { type: "click", element: "7" }, policy, status: "open" });
    expect(await gateDetail(t.db, { gateId: asked.id })).toMatchObject({ kind: "question", tier: "question", action: null, policy: null });
    const queue = await attentionQueue(t.db, { workspaceId: goal.workspaceId, goalId: goal.id });
    const gates = queue.items.flatMap((x) => (x.kind === "gate_waiting" ? [[x.gateId, x.gateKind]] : []));
    expect(gates).toEqual([
      [gate.id, "approval"],
      [asked.id, "question"],
    ]);
  });

  it("a gate's kind, when its opener does not say, follows its options: approve and deny ask for an approval", async () => {
    const goal = await seedGoal(t.db);
    expect((await seedGate(t.db, goal.id, { options: ["approve", "deny"] })).kind).toBe("approval");
    expect((await seedGate(t.db, goal.id, { options: ["2", "4"] })).kind).toBe("question");
    expect((await seedGate(t.db, goal.id, { options: [] })).kind).toBe("question");
  });

  it.each([
    ["answer", { decision: "answer", answer: "4" }, { options: ["2", "4"] }],
    ["approve", { decision: "approve" }, { options: ["approve", "deny"] }],
    ["deny", { decision: "deny" }, { options: ["approve", "deny"] }],
  ] as const)("resolving a gate (%s) reopens the todo its opening blocked, in the same transaction and event", async (_label, decision, over) => {
    const { seedTodos } = await import("../../testing/index.ts");
    const goal = await seedGoal(t.db);
    const [todo] = await seedTodos(t.db, goal.id, 1);
    const gate = await seedGate(t.db, goal.id, { todoId: todo!.id, question: "How many people is the table for?", options: [...over.options] });
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: todo!.id } })).state).toBe("blocked");
    const owner = await seedMember(t.db, "approver");
    const eventsBefore = await t.db.event.count({ where: { goalId: goal.id } });
    await resolveGate(t.db, { gateId: gate.id, userId: owner.userId, rationale: "family dinner", ...decision });
    expect(await t.db.event.count({ where: { goalId: goal.id } })).toBe(eventsBefore + 1);
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: todo!.id } })).state).toBe("pending");
    const ev = await t.db.event.findFirstOrThrow({ where: { subjectId: gate.id, operator: "gate.resolve" } });
    expect(ev.payload).toMatchObject({ todo: { id: todo!.id, from: "blocked", to: "pending" } });
  });

  it("a todo with two open gates goes back to the pool only when the last one closes; an expired gate gives it back too", async () => {
    const { seedTodos } = await import("../../testing/index.ts");
    const clock = manualClock(new Date("2026-11-29T09:00:00Z"));
    const goal = await seedGoal(t.db, {}, { clock });
    const [todo] = await seedTodos(t.db, goal.id, 1, {}, { clock });
    const first = await seedGate(t.db, goal.id, { todoId: todo!.id, question: "How many people is the table for?", options: ["2", "4"] }, { clock });
    const second = await seedGate(t.db, goal.id, { todoId: todo!.id, ttlMs: 60_000 }, { clock });
    const owner = await seedMember(t.db, "approver");
    await resolveGate(t.db, { gateId: first.id, userId: owner.userId, decision: "answer", answer: "2", rationale: "just us" }, { clock });
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: todo!.id } })).state).toBe("blocked");
    clock.advance(60_000);
    await expireGate(t.db, { gateId: second.id }, { clock });
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: todo!.id } })).state).toBe("pending");
  });
});
