// Opening a gate is idempotent on its key: the same key returns the first gate (created: false), never a second
// gate; the key reused for a different goal, todo or question is a CONFLICT. A gate on a todo blocks the todo in
// the same transaction (and so ends its lease): no agent can claim it between the gate opening and the todo
// stopping, and the runtime that opened it only waits for the answer (resolving the gate gives the todo back).
import { z } from "zod";
import { Prisma, type Gate } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { GATE_KINDS, TAKEOVER_REASONS, gateCategoryOf, gateKindOf, gateTargetOf } from "../../domain/gate.ts";
import { GATE_ANSWER_ROLES, PERMISSION_HOLDERS, type Role } from "../../domain/roles.ts";
import { Id, IdempotencyKey, JsonObject, ShortText, Text } from "../../domain/schemas.ts";
import { actorOf, clockDate, appendEvent, inTx, isUniqueViolation, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { workspaceOfGoal } from "../idempotency-keys.ts";
import { applyTodoTransition, lockTodo, requireHolder } from "../todo/held.ts";
import { HELD_STATES } from "../../domain/todo-transitions.ts";
import { approvalRuleOf } from "../approval-rule/approval-rules.ts";

export const OpenGateInput = z.object({
  id: Id.optional(),
  goalId: Id,
  todoId: Id.optional(),
  runId: Id.optional(),
  /** A concrete question a person can answer — never "waiting for owner". */
  question: Text.trim().min(8).max(2000),
  options: z.array(ShortText).max(20).default([]),
  /** The evidence that led to the question. */
  evidenceIds: z.array(Id).max(100).default([]),
  /** approval (approve or deny `action`), question, or takeover (the agent asks a person to operate the phone: give
   * takeoverReason); without it, by the options (gateKindOf). */
  kind: z.enum(GATE_KINDS).optional(),
  /** A takeover's typed ask: login, captcha, one_time_code, blind_screen or other (only with kind takeover). */
  takeoverReason: z.enum(TAKEOVER_REASONS).optional(),
  /** The permission tier that opened it. */
  tier: z.enum(["confirm", "high_risk", "question"]).optional(),
  /** The action the gate asks about, as the runtime proposed it. */
  action: JsonObject.optional(),
  /** Why the policy opened it: its rule, the evidence it matched (quoted from the screen) and its version; the
   * category it named and its approval key (category|app|target), from which the gate's approval category and
   * target are read (gateCategoryOf, gateTargetOf). */
  policy: z
    .object({ ruleId: ShortText, evidence: z.array(Text.max(2000)).max(50), policyVersion: ShortText, kind: ShortText.optional(), approvalKey: Text.max(1000).optional() })
    .optional(),
  /** The opener's lease on the todo (an agent holding it): when the todo is held, only its holder may gate it. */
  agentId: Id.optional(),
  leaseKey: IdempotencyKey.optional(),
  /** After this long the gate may be expired (its category's approval rule, when it has a time-to-live, decides instead). */
  ttlMs: z.number().int().min(1).max(366 * 24 * 60 * 60 * 1000).optional(),
  /** A repeat with this key returns the gate the first call opened. */
  idempotencyKey: IdempotencyKey.optional(),
});
export type OpenGateInput = z.input<typeof OpenGateInput>;

export interface OpenGateResult {
  gate: Gate;
  /** false when the idempotency key was used before and the first gate is returned. */
  created: boolean;
}

export async function openGate(db: DbOrTx, raw: OpenGateInput, ctx?: OperatorContext): Promise<OpenGateResult> {
  const i = parseInput(OpenGateInput, raw, "gate.open");
  if (i.kind === "takeover" && !i.takeoverReason) {
    throw new StateError("INVALID_INPUT", `gate.open: takeoverReason: an agent's takeover ask says why (${TAKEOVER_REASONS.join(", ")}).`, { issues: [{ path: "takeoverReason" }] });
  }
  if (i.takeoverReason && i.kind !== "takeover") {
    throw new StateError("INVALID_INPUT", `gate.open: takeoverReason: only a takeover gate (kind "takeover") has a takeover reason.`, { issues: [{ path: "takeoverReason" }] });
  }
  const replay = async (): Promise<OpenGateResult | null> => {
    if (!i.idempotencyKey) return null;
    const workspaceId = await workspaceOfGoal(db, i.goalId);
    const first = workspaceId ? await db.gate.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey: i.idempotencyKey } } }) : null;
    if (!first) return null;
    if (first.goalId !== i.goalId || first.todoId !== (i.todoId ?? null) || first.question !== i.question) {
      throw new StateError(
        "CONFLICT",
        `Idempotency key ${i.idempotencyKey} already opened gate ${first.id} (goal ${first.goalId}${first.todoId ? `, todo ${first.todoId}` : ""}) with another question; use a fresh key for a new gate.`,
        { gateId: first.id, goalId: first.goalId, todoId: first.todoId },
      );
    }
    return { gate: first, created: false };
  };
  const before = await replay();
  if (before) return before;
  try {
    return await open(db, i, ctx);
  } catch (e) {
    // Lost a race on the same key: the other call opened the gate.
    const after = isUniqueViolation(e) ? await replay() : null;
    if (after) return after;
    throw e;
  }
}

/** Who may take over the phone: members who operate (never an agent). */
export const TAKEOVER_ROLES: readonly Role[] = PERMISSION_HOLDERS.operate.filter((h): h is Role => h !== "agent");

/** A takeover a person starts unasked is taken by them as it opens (run.takeOver); an agent's ask waits for one. */
export interface OpenAs {
  takenBy?: string;
}

export async function open(db: DbOrTx, i: z.output<typeof OpenGateInput>, ctx?: OperatorContext, as: OpenAs = {}): Promise<OpenGateResult> {
  return inTx(db, async (tx) => {
    const goal = await tx.goal.findUnique({ where: { id: i.goalId }, select: { id: true, workspaceId: true } });
    if (!goal) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    // The todo is locked first (the lock order of every todo operator), so a claim waits for this gate.
    const todo = i.todoId ? await lockTodo(tx, i.todoId, ctx) : null;
    if (todo && todo.goalId !== i.goalId) throw new StateError("NOT_FOUND", `Todo ${i.todoId} is not in goal ${i.goalId}.`, { todoId: i.todoId });
    const lease = todo && HELD_STATES.includes(todo.state) && i.leaseKey ? await requireHolder(tx, todo, { agentId: i.agentId, leaseKey: i.leaseKey }) : null;
    if (i.evidenceIds.length) {
      const found = await tx.evidence.count({ where: { id: { in: i.evidenceIds }, goalId: i.goalId } });
      if (found !== new Set(i.evidenceIds).size) {
        throw new StateError("INVALID_INPUT", `gate.open: evidenceIds: some evidence ids are not in goal ${i.goalId}.`, { issues: [{ path: "evidenceIds" }] });
      }
    }
    const now = clockDate(ctx) ?? (await tx.$queryRaw<{ now: Date }[]>`SELECT now() AS now`)[0]!.now;
    // The gate keeps the approval rule of its category as it stands now; a rule saved later is for later gates.
    const kind = i.kind ?? gateKindOf(i.options);
    const category = gateCategoryOf({ kind, policy: i.policy });
    const rule = await approvalRuleOf(tx, goal.workspaceId, category);
    const ttlMs = rule.ttlMs ?? i.ttlMs;
    const gate = await tx.gate.create({
      data: {
        id: i.id ?? randomId("gate"),
        goalId: i.goalId,
        todoId: i.todoId ?? null,
        runId: i.runId ?? null,
        question: i.question,
        options: i.options,
        evidenceIds: i.evidenceIds,
        answerRoles: kind === "takeover" ? [...TAKEOVER_ROLES] : [...GATE_ANSWER_ROLES],
        kind,
        category,
        target: gateTargetOf({ kind, policy: i.policy }),
        approvalsNeeded: kind === "approval" ? rule.approvalsNeeded : 1,
        starterMayApprove: rule.starterMayApprove,
        afterExpiry: rule.afterExpiry,
        tier: i.tier ?? null,
        action: (i.action as Prisma.InputJsonObject | undefined) ?? Prisma.DbNull,
        policy: i.policy ?? Prisma.DbNull,
        expiresAt: ttlMs && kind !== "takeover" ? new Date(now.getTime() + ttlMs) : null,
        takeoverReason: i.takeoverReason ?? null,
        takenBy: as.takenBy ?? null,
        takenAt: as.takenBy ? now : null,
        idempotencyKey: i.idempotencyKey ?? null,
        createdAt: now,
      },
    });
    // The todo stops in this transaction: a gate and a todo left claimable never both commit. A todo already
    // blocked (another gate, a replan) stays so; one that is done, superseded or failed cannot wait for a gate.
    let todoMove: { id: string; from: string; to: string } | null = null;
    if (todo && todo.state !== "blocked") {
      const active = lease ?? (HELD_STATES.includes(todo.state) ? await tx.lease.findFirst({ where: { todoId: todo.id, status: "active" } }) : null);
      const moved = await applyTodoTransition(tx, todo, "block", { actor: actorOf(ctx, i.agentId), lease: active, withinEventOf: "gate.open", patch: { reason: `waits for gate ${gate.id}: ${gate.question}`.slice(0, 2000) } }, ctx);
      todoMove = { id: todo.id, from: moved.from, to: moved.to };
    }
    await appendEvent(
      tx,
      { operator: "gate.open", actor: actorOf(ctx, i.agentId), subjectId: gate.id, goalId: i.goalId, payload: { question: gate.question, options: gate.options, kind: gate.kind, tier: gate.tier, category: gate.category, target: gate.target, approvalsNeeded: gate.approvalsNeeded, answerRoles: gate.answerRoles, todoId: gate.todoId, todo: todoMove } },
      ctx,
    );
    // An agent's ask tells the people who may take over (notifications read takeover.ask).
    if (kind === "takeover" && !as.takenBy) {
      await appendEvent(tx, { operator: "takeover.ask", actor: actorOf(ctx, i.agentId), subjectId: gate.id, goalId: i.goalId, payload: { runId: gate.runId, todoId: gate.todoId, reason: gate.takeoverReason, question: gate.question } }, ctx);
    }
    return { gate, created: true };
  });
}
