import { describe, expect, it } from "vitest";
import { seedClaimed, seedMember, useTestDatabase } from "../../testing/index.ts";
import { isStateError, type StateError } from "../../domain/errors.ts";
import { MASKED_TEXT } from "../../domain/gate.ts";
import { startTodo } from "../todo/start-todo.ts";
import { claimTodo } from "../todo/claim-todo.ts";
import { startRun } from "../run/start-run.ts";
import { recordStep } from "../run/record-step.ts";
import { putBlob } from "../blob/put-blob.ts";
import { openGate } from "./open-gate.ts";
import { resolveGate } from "./resolve-gate.ts";
import { handBack, recordPersonStep, takeOver } from "./takeover.ts";
import { attentionQueue } from "../../projections/attention-queue.ts";
import { runSteps } from "../../projections/run-replay.ts";
import { gateDetail } from "../../projections/gate-detail.ts";
import { createWebhookEndpoint, enqueueNotifications } from "../notification/notifications.ts";

const t = useTestDatabase();

const refused = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => (isStateError(e) ? e : Promise.reject(e))) as Promise<StateError | null>;

/** A running run whose agent holds its todo (claimed and started), in the seeders' workspace. */
async function runningRun() {
  const s = await seedClaimed(t.db);
  await startTodo(t.db, { todoId: s.todo.id, agentId: s.agent.id, leaseKey: s.claim.lease.leaseKey });
  const run = await startRun(t.db, { goalId: s.goal.id, todoId: s.todo.id, agentId: s.agent.id });
  const shot = async (n: number) => (await putBlob(t.db, { bytes: new Uint8Array([0x89, 0x50, n, n + 1]), mime: "image/png", workspaceId: s.goal.workspaceId })).sha256;
  return { ...s, run, before: await shot(1), after: await shot(2) };
}

describe("take over and hand back", () => {
  it("taking over blocks the run's todo in the gate's transaction: the agent's next write is refused as its lease is gone", async () => {
    const s = await runningRun();
    const alice = await seedMember(t.db, "operator", s.goal.workspaceId, "Alice");
    const taken = await takeOver(t.db, { runId: s.run.id, userId: alice.userId });
    expect(taken).toMatchObject({ created: true, takenBy: { id: alice.userId, name: "Alice" } });
    const gate = await t.db.gate.findUniqueOrThrow({ where: { id: taken.gateId } });
    expect(gate).toMatchObject({ kind: "takeover", status: "open", todoId: s.todo.id, runId: s.run.id, takenBy: alice.userId, takeoverReason: null, answerRoles: ["operator", "admin"] });
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: s.todo.id } })).state).toBe("blocked");
    expect((await t.db.lease.findUniqueOrThrow({ where: { id: s.claim.lease.id } })).status).not.toBe("active");
    const ops = (await t.db.event.findMany({ where: { subjectId: gate.id }, orderBy: { id: "asc" } })).map((e) => e.operator);
    expect(ops).toEqual(["gate.open", "takeover.start"]);

    const late = await refused(
      recordStep(t.db, {
        runId: s.run.id, agentId: s.agent.id, todoId: s.todo.id, leaseKey: s.claim.lease.leaseKey,
        evidence: [{ idempotencyKey: `${s.run.id}:late`, kind: "anomaly", summary: "still tapping", data: { kind: "no_change" } }],
      }),
    );
    expect(late?.code).toBe("CONFLICT");
    expect(late?.message).toContain("blocked");
  });

  it("a second member's takeover of a taken run is a CONFLICT naming who holds the phone; the taker's repeat answers the same gate", async () => {
    const s = await runningRun();
    const alice = await seedMember(t.db, "operator", s.goal.workspaceId, "Alice");
    const bob = await seedMember(t.db, "admin", s.goal.workspaceId, "Bob");
    const first = await takeOver(t.db, { runId: s.run.id, userId: alice.userId });
    const second = await refused(takeOver(t.db, { runId: s.run.id, userId: bob.userId }));
    expect(second?.code).toBe("CONFLICT");
    expect(second?.message).toContain("Alice took over");
    expect(second?.details).toMatchObject({ gateId: first.gateId, takenBy: { id: alice.userId, name: "Alice" } });
    expect(await takeOver(t.db, { runId: s.run.id, userId: alice.userId })).toMatchObject({ gateId: first.gateId, created: false });
    expect(await t.db.gate.count({ where: { runId: s.run.id } })).toBe(1);
  });

  it("a viewer or an approver may not take over", async () => {
    const s = await runningRun();
    for (const role of ["viewer", "approver"] as const) {
      const m = await seedMember(t.db, role, s.goal.workspaceId);
      const e = await refused(takeOver(t.db, { runId: s.run.id, userId: m.userId }));
      expect(e?.code).toBe("FORBIDDEN");
      expect(e?.message).toContain(`You are ${role} here`);
    }
    expect(await t.db.gate.count({ where: { runId: s.run.id } })).toBe(0);
  });

  it("only the taker records steps; a secret's text is never stored in clear (step, evidence and events)", async () => {
    const s = await runningRun();
    const alice = await seedMember(t.db, "operator", s.goal.workspaceId, "Alice");
    const bob = await seedMember(t.db, "operator", s.goal.workspaceId, "Bob");
    const { gateId } = await takeOver(t.db, { runId: s.run.id, userId: alice.userId });
    const screen = { width: 1080, height: 2400 };
    const step = { runId: s.run.id, gateId, screen, beforeSha256: s.before, afterSha256: s.after };
    const notTaker = await refused(recordPersonStep(t.db, { ...step, userId: bob.userId, action: { type: "tap", x: 540, y: 1200 } }));
    expect(notTaker?.code).toBe("FORBIDDEN");
    expect(notTaker?.message).toContain("Alice took over this run");

    const tap = await recordPersonStep(t.db, { ...step, userId: alice.userId, action: { type: "tap", x: 540, y: 1200 } });
    expect(tap).toMatchObject({ index: 0, actor: { kind: "member", memberId: alice.userId, name: "Alice" }, action: { type: "tap", x: 500, y: 500 } });
    const typed = await recordPersonStep(t.db, { ...step, userId: alice.userId, action: { type: "type", text: "hunter2-correct-horse" }, secret: true, idempotencyKey: "tab-1:step-2" });
    expect(typed.index).toBe(1);
    // A retried request with the same key answers the first step and records nothing more.
    expect(await recordPersonStep(t.db, { ...step, userId: alice.userId, action: { type: "type", text: "hunter2-correct-horse" }, secret: true, idempotencyKey: "tab-1:step-2" })).toMatchObject({ stepId: typed.stepId, index: 1 });
    expect(await t.db.step.count({ where: { runId: s.run.id } })).toBe(2);
    const row = await t.db.step.findUniqueOrThrow({ where: { id: typed.stepId } });
    expect(row).toMatchObject({ memberId: alice.userId, node: "person", action: { type: "type", text: MASKED_TEXT, masked: true } });
    const clear = await t.db.$queryRaw<{ n: number }[]>`
      SELECT ((SELECT count(*) FROM "Step" WHERE "action"::text LIKE '%hunter2%' OR "outcome"::text LIKE '%hunter2%')
            + (SELECT count(*) FROM "Evidence" WHERE "data"::text LIKE '%hunter2%' OR "summary" LIKE '%hunter2%')
            + (SELECT count(*) FROM "Event" WHERE "payload"::text LIKE '%hunter2%'))::int AS n`;
    expect(clear[0]!.n).toBe(0);
    const evidence = await t.db.evidence.findMany({ where: { runId: s.run.id, stepIndex: 0 }, orderBy: { createdAt: "asc" } });
    expect(evidence.map((e) => [e.kind, e.blobSha256])).toEqual([["observation", s.before], ["action", null], ["observation", s.after]]);

    // The replay says who took each step: the agent's, and the person's with their name.
    await recordStep(t.db, { runId: s.run.id, agentId: s.agent.id, step: { index: 2, node: "executor", action: { type: "back" } } });
    const replay = await runSteps(t.db, { runId: s.run.id });
    expect(replay.items.map((x) => x.actor)).toEqual([
      { kind: "member", memberId: alice.userId, name: "Alice" },
      { kind: "member", memberId: alice.userId, name: "Alice" },
      { kind: "agent" },
    ]);
    expect(replay.items[0]!.screen?.sha256).toBe(s.before);
    expect(replay.items[0]!.point).toEqual({ x: 500, y: 500 });
  });

  it("handing back answers the takeover, gives the todo back and writes a handoff with the person's steps in words", async () => {
    const s = await runningRun();
    const alice = await seedMember(t.db, "operator", s.goal.workspaceId, "Alice");
    const bob = await seedMember(t.db, "operator", s.goal.workspaceId, "Bob");
    const { gateId } = await takeOver(t.db, { runId: s.run.id, userId: alice.userId });
    const step = { runId: s.run.id, gateId, userId: alice.userId, screen: { width: 1080, height: 2400 }, beforeSha256: s.before, afterSha256: s.after };
    await recordPersonStep(t.db, { ...step, action: { type: "tap", x: 540, y: 1200 } });
    await recordPersonStep(t.db, { ...step, action: { type: "type", text: "" }, secret: true });
    expect((await refused(handBack(t.db, { runId: s.run.id, gateId, userId: bob.userId })))?.code).toBe("FORBIDDEN");

    const back = await handBack(t.db, { runId: s.run.id, gateId, userId: alice.userId, note: "Logged in; the code came by SMS." });
    expect(back.steps).toEqual(["tapped at (540, 1200)", `typed a secret (${MASKED_TEXT})`]);
    expect(back.summary).toBe(`A person took over: Alice did: tapped at (540, 1200); typed a secret (${MASKED_TEXT}). Their note: Logged in; the code came by SMS.`);
    expect(back.nextStepIndex).toBe(2);
    expect(back.gate).toMatchObject({ status: "answered", answer: "Logged in; the code came by SMS.", resolvedBy: alice.userId });
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: s.todo.id } })).state).toBe("pending");
    const handoff = await t.db.evidence.findUniqueOrThrow({ where: { id: back.handoffEvidenceId } });
    expect(handoff).toMatchObject({ kind: "handoff", runId: s.run.id, todoId: s.todo.id, summary: back.summary, data: { status: "partial", reason: "handed_back", steps: 2 } });
    expect(await t.db.event.count({ where: { subjectId: gateId, operator: "takeover.handBack" } })).toBe(1);
    // The agent claims its todo again; a step after the takeover is refused (it ended), and a second hand back too.
    expect((await claimTodo(t.db, { agentId: s.agent.id, todoId: s.todo.id })).claimed).toBe(true);
    expect((await refused(recordPersonStep(t.db, { ...step, action: { type: "home" } })))?.code).toBe("CONFLICT");
    expect((await refused(handBack(t.db, { runId: s.run.id, gateId, userId: alice.userId })))?.code).toBe("CONFLICT");
  });

  it("the agent's ask: a takeover gate with its reason, takeover.ask, on the Attention page until a person takes it", async () => {
    const s = await runningRun();
    const { gate } = await openGate(t.db, {
      goalId: s.goal.id, todoId: s.todo.id, runId: s.run.id, agentId: s.agent.id, leaseKey: s.claim.lease.leaseKey,
      kind: "takeover", takeoverReason: "login", question: "The app asks for the account's password; please log in.",
    });
    expect(gate).toMatchObject({ kind: "takeover", takeoverReason: "login", takenBy: null });
    const ask = await t.db.event.findFirstOrThrow({ where: { subjectId: gate.id, operator: "takeover.ask" } });
    expect(ask.payload).toMatchObject({ runId: s.run.id, reason: "login" });
    const queued = async () => (await attentionQueue(t.db, { workspaceId: s.goal.workspaceId })).items.find((x) => x.kind === "gate_waiting" && x.gateId === gate.id);
    expect(await queued()).toMatchObject({ gateKind: "takeover", takeover: { runId: s.run.id, reason: "login", takenBy: null } });
    const approver = await seedMember(t.db, "approver", s.goal.workspaceId);
    expect((await refused(resolveGate(t.db, { gateId: gate.id, userId: approver.userId, decision: "answer", answer: "done", rationale: "r" })))?.code).toBe("CONFLICT");
    const noReason = await refused(openGate(t.db, { goalId: s.goal.id, kind: "takeover", question: "Please take over the phone for me." }));
    expect(noReason?.code).toBe("INVALID_INPUT");

    const alice = await seedMember(t.db, "operator", s.goal.workspaceId, "Alice");
    const taken = await takeOver(t.db, { runId: s.run.id, userId: alice.userId });
    expect(taken.gateId).toBe(gate.id);
    expect(await queued()).toMatchObject({ takeover: { takenBy: { id: alice.userId, name: "Alice" } } });
    expect(await gateDetail(t.db, { gateId: gate.id })).toMatchObject({ kind: "takeover", status: "open", takeover: { runId: s.run.id, reason: "login", takenBy: { id: alice.userId, name: "Alice" } } });
    expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "takeover.start" } })).toBe(1);
  });

  it("notifies a takeover once: the agent's ask as takeover_asked (never also as a gate opened); a person's own takeover not at all", async () => {
    const s = await runningRun();
    const ep = await createWebhookEndpoint(t.db, { workspaceId: s.goal.workspaceId, url: "https://hooks.example.com/t", format: "generic", kinds: ["gate_opened", "takeover_asked"], secretSealed: "v1.sealed-for-the-test" });
    const drain = async () => {
      for (;;) if ((await enqueueNotifications(t.db, {})).events === 0) return;
    };
    const alice = await seedMember(t.db, "operator", s.goal.workspaceId, "Alice");
    const own = await takeOver(t.db, { runId: s.run.id, userId: alice.userId });
    await handBack(t.db, { runId: s.run.id, gateId: own.gateId, userId: alice.userId });
    await drain();
    expect(await t.db.notificationDelivery.count({ where: { endpointId: ep.id } })).toBe(0);
    const again = await claimTodo(t.db, { agentId: s.agent.id, todoId: s.todo.id });
    if (!again.claimed) throw new Error(again.reason);
    await openGate(t.db, { goalId: s.goal.id, todoId: s.todo.id, runId: s.run.id, agentId: s.agent.id, leaseKey: again.lease.leaseKey, kind: "takeover", takeoverReason: "captcha", question: "A captcha asks which pictures show buses; please solve it." });
    await drain();
    expect((await t.db.notificationDelivery.findMany({ where: { endpointId: ep.id } })).map((d) => d.kind)).toEqual(["takeover_asked"]);
  });
});
