// Take over and hand back: a person operates the run's phone themselves, under a gate of kind takeover. Taking over
// opens that gate on the todo the run's agent holds (or takes the agent's own ask, a takeover gate it opened), which
// blocks the todo in the same transaction and so ends the agent's lease: its next write is refused and it waits for
// the gate like any other. Only the member who took over records steps (each a Step row with that member as its
// actor, its screenshots before and after as observation evidence); typed text marked secret is stored masked.
// Handing back answers the gate with the person's note, gives the todo back, and writes a handoff evidence row that
// says what the person did, in words — what the runtime tells its planner when it claims the todo again.
import { z } from "zod";
import type { Gate, Run } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { personStepAction, personStepWords, PersonAction, type StepActor } from "../../domain/gate.ts";
import { HELD_STATES } from "../../domain/todo-transitions.ts";
import { Id, IdempotencyKey, Text } from "../../domain/schemas.ts";
import { appendEvent, currentTime, inTx, type OperatorContext, type DbOrTx, type Tx } from "../operator.ts";
import { insertEvidence } from "../evidence/append-evidence.ts";
import { appendStepTo } from "../run/append-step.ts";
import { lockRun } from "../run/run-guards.ts";
import { open, TAKEOVER_ROLES } from "./open-gate.ts";
import { reopenGatedTodo } from "./gate-todo.ts";

const Sha256 = Text.regex(/^[0-9a-f]{64}$/, "a lowercase hex sha256");
const ScreenPx = z.strictObject({ width: z.number().int().min(1).max(20_000), height: z.number().int().min(1).max(20_000) });

export const TakeOverInput = z.object({
  runId: Id,
  /** The member taking over (their "user".id): the API sets the caller, never a field the caller fills in. */
  userId: Id,
});
export type TakeOverInput = z.input<typeof TakeOverInput>;

export const RecordPersonStepInput = z.object({
  runId: Id,
  gateId: Id,
  /** The member who took over: the API sets the caller. */
  userId: Id,
  /** What the person did, in device pixels of the `before` screenshot. */
  action: PersonAction,
  /** The `before` screenshot's size in pixels (where the action's coordinates are). */
  screen: ScreenPx,
  /** The screenshots before and after the action, put first (POST /blobs); this workspace must hold them. */
  beforeSha256: Sha256,
  afterSha256: Sha256,
  /** Typed text that is a secret (a password field's): stored and shown masked. Its text should not be sent at all. */
  secret: z.boolean().default(false),
  /** A repeat with this key (a retried request) answers the step the first one recorded and records nothing. */
  idempotencyKey: IdempotencyKey.optional(),
});
export type RecordPersonStepInput = z.input<typeof RecordPersonStepInput>;

export const HandBackInput = z.object({
  runId: Id,
  gateId: Id,
  /** The member handing back (the taker, or an admin): the API sets the caller. */
  userId: Id,
  /** What the person wants the agent to know ("logged in; the code was 2FA by SMS"). */
  note: Text.trim().min(1).max(2000).optional(),
});
export type HandBackInput = z.input<typeof HandBackInput>;

export interface TakeOverResult {
  gateId: string;
  /** false: the caller had taken this run over already (a repeat answers the same gate). */
  created: boolean;
  takenBy: { id: string; name: string };
  takenAt: Date;
}

export interface PersonStepResult {
  stepId: string;
  index: number;
  actor: StepActor;
  /** The action as stored (0–1000 coordinates; a secret's text masked). */
  action: Record<string, unknown>;
}

export interface HandBackResult {
  gate: Gate;
  /** The handoff evidence row that says what the person did. */
  handoffEvidenceId: string;
  /** The person's steps, in words, in order. */
  steps: string[];
  /** What the planner is told: "<name> took over and did: …; their note: …". */
  summary: string;
  /** The index the run's next step takes (after the person's steps). */
  nextStepIndex: number;
}

export async function takeOver(db: DbOrTx, raw: TakeOverInput, ctx?: OperatorContext): Promise<TakeOverResult> {
  const i = parseInput(TakeOverInput, raw, "run.takeOver");
  return inTx(db, async (tx) => {
    // The run's lock orders two people taking over one run: the second sees the first one's gate.
    const run = await lockRun(tx, i.runId);
    const person = await operatorOf(tx, run, i.userId, "take over");
    if (run.status !== "running") {
      throw new StateError("ILLEGAL_TRANSITION", `Run ${run.id} is ${run.status}: only a running run can be taken over. Start or resume the run first.`, { runId: run.id, status: run.status, legal: [] });
    }
    const asked = await tx.$queryRaw<Gate[]>`
      SELECT * FROM "Gate" WHERE "runId" = ${run.id} AND "kind" = 'takeover' AND "status" = 'open' ORDER BY "createdAt" ASC, "id" ASC LIMIT 1 FOR UPDATE`;
    const existing = asked[0];
    if (existing) {
      if (existing.takenBy === person.id) return { gateId: existing.id, created: false, takenBy: person, takenAt: existing.takenAt! };
      if (existing.takenBy) {
        const holder = await nameOf(tx, existing.takenBy);
        throw new StateError(
          "CONFLICT",
          `${holder.name} took over run ${run.id} at ${existing.takenAt!.toISOString()} and holds the phone; ask them to hand it back first.`,
          { gateId: existing.id, takenBy: holder, takenAt: existing.takenAt },
        );
      }
      const takenAt = await currentTime(tx, ctx);
      await tx.gate.update({ where: { id: existing.id }, data: { takenBy: person.id, takenAt } });
      await appendEvent(tx, { operator: "takeover.start", actor: person.id, subjectId: existing.id, goalId: run.goalId, payload: { runId: run.id, todoId: existing.todoId, takenBy: person.id, asked: true, reason: existing.takeoverReason } }, ctx);
      return { gateId: existing.id, created: true, takenBy: person, takenAt };
    }
    // Unasked: the gate goes on the todo the run's agent holds now, which it blocks (ending the agent's lease).
    const todoId = await heldTodoOf(tx, run);
    const { gate } = await open(
      tx,
      { goalId: run.goalId, todoId, runId: run.id, question: `${person.name} took over the phone; the agent waits until they hand it back.`.slice(0, 2000), options: [], evidenceIds: [], kind: "takeover" },
      { ...ctx, actor: person.id },
      { takenBy: person.id },
    );
    await appendEvent(tx, { operator: "takeover.start", actor: person.id, subjectId: gate.id, goalId: run.goalId, payload: { runId: run.id, todoId, takenBy: person.id, asked: false, reason: null } }, ctx);
    return { gateId: gate.id, created: true, takenBy: person, takenAt: gate.takenAt! };
  });
}

export async function recordPersonStep(db: DbOrTx, raw: RecordPersonStepInput, ctx?: OperatorContext): Promise<PersonStepResult> {
  const i = parseInput(RecordPersonStepInput, raw, "run.recordPersonStep");
  if (i.secret && i.action.type !== "type") {
    throw new StateError("INVALID_INPUT", `run.recordPersonStep: secret: only typed text is a secret; this action is a ${i.action.type}.`, { issues: [{ path: "secret" }] });
  }
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    const gate = await lockTakeover(tx, run, i.gateId);
    if (gate.takenBy !== i.userId) {
      const holder = gate.takenBy ? await nameOf(tx, gate.takenBy) : null;
      throw new StateError(
        "FORBIDDEN",
        holder ? `${holder.name} took over this run; only they record steps on its phone. Ask them to hand it back, then take over yourself.` : `Nobody has taken over this run yet; take over first (Take over), then act on the phone.`,
        { gateId: gate.id, takenBy: holder },
      );
    }
    const workspace = await tx.goal.findUniqueOrThrow({ where: { id: run.goalId }, select: { workspaceId: true } });
    const shas = [...new Set([i.beforeSha256, i.afterSha256])];
    const held = await tx.workspaceBlob.count({ where: { workspaceId: workspace.workspaceId, sha256: { in: shas } } });
    if (held < shas.length) throw new StateError("NOT_FOUND", `A screenshot this step names was never put in this workspace; put it first (POST /blobs).`, { sha256: shas });
    const person = await nameOf(tx, i.userId);
    const actor: StepActor = { kind: "member", memberId: person.id, name: person.name };
    if (i.idempotencyKey) {
      const first = await tx.evidence.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId: workspace.workspaceId, idempotencyKey: `takeover:${gate.id}:${i.idempotencyKey}:action` } } });
      const step = first?.stepIndex != null ? await tx.step.findUnique({ where: { runId_index: { runId: run.id, index: first.stepIndex } } }) : null;
      if (step) return { stepId: step.id, index: step.index, actor, action: step.action as Record<string, unknown> };
    }
    const last = await tx.step.aggregate({ where: { runId: run.id }, _max: { index: true } });
    const index = (last._max.index ?? -1) + 1;
    const { action, px } = personStepAction(i.action, i.screen, i.secret);
    const words = personStepWords(i.action, i.secret);
    const actx = { ...ctx, actor: person.id };
    const { step } = await appendStepTo(tx, run, { runId: run.id, index, node: "person", action: action as never, outcome: { outcome: words }, anomalies: [], tokens: 0, memberId: person.id }, actx);
    const key = (part: string) => `takeover:${gate.id}:${i.idempotencyKey ?? index}:${part}`;
    const common = { goalId: run.goalId, runId: run.id, stepIndex: index, ...(gate.todoId ? { todoId: gate.todoId } : {}) };
    const at = await currentTime(tx, ctx);
    await insertEvidence(
      tx,
      [
        { values: { ...common, kind: "observation", summary: `Before ${person.name}'s step: the screen`, data: { screen: i.screen }, blobSha256: i.beforeSha256, idempotencyKey: key("before") }, at: new Date(at.getTime()) },
        { values: { ...common, kind: "action", summary: `${person.name} ${words}`, data: { action, px }, idempotencyKey: key("action") }, at: new Date(at.getTime() + 1) },
        { values: { ...common, kind: "observation", summary: `After ${person.name}'s step: the screen`, data: {}, blobSha256: i.afterSha256, idempotencyKey: key("after") }, at: new Date(at.getTime() + 2) },
      ],
      actx,
    );
    return { stepId: step.id, index, actor, action };
  });
}

export async function handBack(db: DbOrTx, raw: HandBackInput, ctx?: OperatorContext): Promise<HandBackResult> {
  const i = parseInput(HandBackInput, raw, "run.handBack");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    const gate = await lockTakeover(tx, run, i.gateId);
    const goal = await tx.goal.findUniqueOrThrow({ where: { id: run.goalId }, select: { workspaceId: true } });
    const member = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: goal.workspaceId, userId: i.userId } } });
    if (!member) throw new StateError("NOT_FOUND", `Run ${run.id} does not exist.`, { runId: run.id });
    if (gate.takenBy !== i.userId && member.role !== "admin") {
      const holder = gate.takenBy ? await nameOf(tx, gate.takenBy) : null;
      throw new StateError(
        "FORBIDDEN",
        holder ? `${holder.name} took over this run; only they (or an admin) hand it back.` : `Nobody has taken over this run; take over first, or ask an admin to close the agent's ask.`,
        { gateId: gate.id, takenBy: holder },
      );
    }
    const taker = gate.takenBy ? await nameOf(tx, gate.takenBy) : await nameOf(tx, i.userId);
    const acted = await tx.evidence.findMany({
      where: { runId: run.id, kind: "action", idempotencyKey: { startsWith: `takeover:${gate.id}:` } },
      orderBy: [{ stepIndex: "asc" }, { createdAt: "asc" }],
      select: { summary: true },
    });
    const prefix = `${taker.name} `;
    const steps = acted.map((e) => (e.summary.startsWith(prefix) ? e.summary.slice(prefix.length) : e.summary));
    const did = steps.length ? `did: ${steps.join("; ")}` : "did nothing on the phone";
    const summary = `A person took over: ${taker.name} ${did}.${i.note ? ` Their note: ${i.note}` : ""}`.slice(0, 2000);
    const at = await currentTime(tx, ctx);
    await tx.gate.update({
      where: { id: gate.id },
      data: { status: "answered", decision: "answer", answer: i.note ?? "Handed back.", rationale: summary, resolvedBy: i.userId, resolvedAt: at },
    });
    const todoMove = await reopenGatedTodo(tx, gate, i.userId, "takeover.handBack", ctx);
    const [handoff] = await insertEvidence(
      tx,
      [
        {
          values: {
            goalId: run.goalId,
            runId: run.id,
            ...(gate.todoId ? { todoId: gate.todoId } : {}),
            kind: "handoff",
            summary,
            data: { todoId: gate.todoId ?? "", status: "partial", reason: "handed_back", summary, outputs: {}, answers: i.note ? [i.note] : [], finalScreen: null, steps: steps.length },
            idempotencyKey: `takeover:${gate.id}:handback`,
          },
          at,
        },
      ],
      { ...ctx, actor: i.userId },
    );
    const last = await tx.step.aggregate({ where: { runId: run.id }, _max: { index: true } });
    const nextStepIndex = (last._max.index ?? -1) + 1;
    await appendEvent(
      tx,
      { operator: "takeover.handBack", actor: i.userId, subjectId: gate.id, goalId: run.goalId, payload: { runId: run.id, todoId: gate.todoId, takenBy: gate.takenBy, note: i.note ?? null, steps: steps.length, nextStepIndex, todo: todoMove } },
      ctx,
    );
    return { gate: await tx.gate.findUniqueOrThrow({ where: { id: gate.id } }), handoffEvidenceId: handoff!.evidence.id, steps, summary, nextStepIndex };
  });
}

/** The run's open takeover gate `gateId`, locked; CONFLICT once it was handed back. */
async function lockTakeover(tx: Tx, run: Run, gateId: string): Promise<Gate> {
  const rows = await tx.$queryRaw<Gate[]>`SELECT * FROM "Gate" WHERE "id" = ${gateId} FOR UPDATE`;
  const gate = rows[0];
  if (!gate || gate.runId !== run.id || gate.kind !== "takeover") throw new StateError("NOT_FOUND", `Run ${run.id} has no takeover ${gateId}.`, { runId: run.id, gateId });
  if (gate.status !== "open") {
    throw new StateError("CONFLICT", `The takeover ${gate.id} of run ${run.id} ended (${gate.status}${gate.resolvedAt ? ` at ${gate.resolvedAt.toISOString()}` : ""}); take over again to act on the phone.`, { gateId: gate.id, status: gate.status });
  }
  return gate;
}

/** The member `userId` of the run's workspace who may operate its phone, with their name. */
async function operatorOf(tx: Tx, run: Run, userId: string, what: string): Promise<{ id: string; name: string }> {
  const goal = await tx.goal.findUniqueOrThrow({ where: { id: run.goalId }, select: { workspaceId: true } });
  const member = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: goal.workspaceId, userId } } });
  if (!member) throw new StateError("NOT_FOUND", `Run ${run.id} does not exist.`, { runId: run.id });
  if (!TAKEOVER_ROLES.includes(member.role)) {
    throw new StateError("FORBIDDEN", `You are ${member.role} here; only ${TAKEOVER_ROLES.join(" or ")} members may ${what} a run's phone. Ask one of them.`, { role: member.role, roles: TAKEOVER_ROLES });
  }
  return nameOf(tx, userId);
}

async function nameOf(tx: Tx, userId: string): Promise<{ id: string; name: string }> {
  const user = await tx.authUser.findUnique({ where: { id: userId }, select: { id: true, name: true } });
  return user ?? { id: userId, name: userId };
}

/** The todo the run's agent holds now (its active lease in the run's goal; the run's own todo first). */
async function heldTodoOf(tx: Tx, run: Run): Promise<string> {
  const leases = await tx.lease.findMany({
    where: { ownerId: run.agentId, status: "active", todo: { goalId: run.goalId, state: { in: [...HELD_STATES] } } },
    select: { todoId: true },
    orderBy: { createdAt: "desc" },
  });
  const todoId = leases.find((l) => l.todoId === run.todoId)?.todoId ?? leases[0]?.todoId;
  if (!todoId) {
    throw new StateError(
      "PRECONDITION_FAILED",
      `The agent of run ${run.id} holds no todo right now (it waits for a gate, or is between todos); answer its gate on the Attention page, or take over once it works on a todo.`,
      { runId: run.id },
    );
  }
  return todoId;
}
