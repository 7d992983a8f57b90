// Who must act next: open gates (oldest first, with who may answer), expired leases, interrupted runs (with the
// action that resumes them), goals whose todos are all done (proposed for completion), blocked todos, exhausted quota.
import { z } from "zod";
import type { GateKind } from "../domain/gate.ts";
import { takeoverViewsOf, type TakeoverView } from "./takeover-view.ts";
import { parseInput } from "../domain/input.ts";
import { PAGE_LIMIT, type Page } from "../domain/page.ts";
import { Id, Text } from "../domain/schemas.ts";
import { currentTime, type DbOrTx, type OperatorContext } from "../services/operator.ts";
import { describeRemaining, policyUsage } from "../services/quota/usage.ts";
import { gateApprovalsOf, type GateApprovals } from "./gate-approvals.ts";

/** A page of the queue in its order (gates, expired leases, interrupted runs, done goals, blocked todos, quota); the
 * cursor is how many items earlier pages held (the queue is computed, so a page may shift as work moves). */
export const AttentionQueueInput = z.object({
  workspaceId: Id,
  goalId: Id.optional(),
  cursor: Text.regex(/^\d{1,5}$/, "must be a nextCursor of the attention queue").optional(),
  limit: z.number().int().min(1).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default),
});
export type AttentionQueueInput = z.input<typeof AttentionQueueInput>;

/** A takeover gate as the queue shows it (takeover-view.ts). */
export type AttentionTakeover = TakeoverView;

export type AttentionWho =
  | { kind: "members"; roles: string[] }
  | { kind: "agents"; capabilities: string[] }
  | { kind: "planner" };

export type AttentionItem =
  | { kind: "gate_waiting"; who: AttentionWho; goalId: string; gateId: string; todoId: string | null; question: string; options: string[]; gateKind: GateKind; approvals: GateApprovals; since: Date; takeover: AttentionTakeover | null }
  | { kind: "lease_expired"; who: AttentionWho; goalId: string; todoId: string; title: string; previousOwner: string; since: Date }
  | { kind: "todo_blocked"; who: AttentionWho; goalId: string; todoId: string; title: string; reason: string | null; since: Date }
  /** A run whose worker died: `action` is the one click that resumes it (run.resume with the run id, or the worker's flag). */
  | { kind: "run_interrupted"; who: AttentionWho; goalId: string; runId: string; agentId: string; summary: string | null; since: Date; action: { kind: "resume_run"; runId: string; command: string } }
  /** Every todo of an active goal is done or superseded: a person (or the validating operator) may complete it. */
  | { kind: "goal_done"; who: AttentionWho; goalId: string; title: string; since: Date; action: { kind: "complete_goal"; goalId: string } }
  | { kind: "quota_exhausted"; who: AttentionWho; goalId: string | null; policyId: string; scope: string; subjectId: string; message: string; retryAfterMs: number | null };

export async function attentionQueue(db: DbOrTx, raw: AttentionQueueInput, ctx?: OperatorContext): Promise<Page<AttentionItem>> {
  const i = parseInput(AttentionQueueInput, raw, "attentionQueue");
  const offset = Number(i.cursor ?? 0);
  // Each source in its order, enough rows of each that the concatenation's first offset + limit + 1 are right.
  const take = offset + i.limit + 1;
  const at = await currentTime(db, ctx);
  const inWorkspace = { goal: { workspaceId: i.workspaceId } };
  const goalFilter = i.goalId ? { goalId: i.goalId, ...inWorkspace } : inWorkspace;
  const [gates, expired, blocked, policies, done, interrupted] = await Promise.all([
    db.gate.findMany({ where: { status: "open", ...goalFilter }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take }),
    db.lease.findMany({
      where: { status: "active", expiresAt: { lte: at }, todo: { ...(i.goalId ? { goalId: i.goalId } : {}), ...inWorkspace } },
      include: { todo: { select: { goalId: true, title: true, requiredCapabilities: true } } },
      orderBy: [{ expiresAt: "asc" }, { id: "asc" }],
      take,
    }),
    db.todo.findMany({ where: { state: "blocked", ...goalFilter }, orderBy: [{ updatedAt: "asc" }, { id: "asc" }], take }),
    db.quotaPolicy.findMany({
      where: {
        OR: [
          { scope: "goal", goal: { workspaceId: i.workspaceId, ...(i.goalId ? { id: i.goalId } : {}) } },
          { scope: "agent", agentId: { in: (await db.agent.findMany({ where: { workspaceId: i.workspaceId }, select: { id: true } })).map((a) => a.id) } },
        ],
      },
      select: { goalId: true, agentId: true, scope: true } }),
    db.goal.findMany({
      where: { status: "active", workspaceId: i.workspaceId, ...(i.goalId ? { id: i.goalId } : {}), todos: { some: { state: "done" }, every: { state: { in: ["done", "superseded"] } } } },
      orderBy: [{ updatedAt: "asc" }, { id: "asc" }],
      take,
      select: { id: true, title: true, todos: { orderBy: { updatedAt: "desc" }, take: 1, select: { updatedAt: true } } },
    }),
    db.run.findMany({ where: { status: "interrupted", ...goalFilter }, orderBy: [{ startedAt: "asc" }, { id: "asc" }], take, include: { goal: { select: { todos: { where: { state: { notIn: ["done", "superseded"] } }, orderBy: { position: "asc" }, take: 1, select: { requiredCapabilities: true } } } } } }),
  ]);
  const items: AttentionItem[] = [];
  const approvals = await gateApprovalsOf(db, gates);
  const takeovers = await takeoverViewsOf(db, gates);
  for (const g of gates) {
    const takeover = takeovers.get(g.id) ?? null;
    items.push({ kind: "gate_waiting", who: { kind: "members", roles: g.answerRoles }, goalId: g.goalId, gateId: g.id, todoId: g.todoId, question: g.question, options: g.options, gateKind: g.kind, approvals: approvals.get(g.id)!, since: g.createdAt, takeover });
  }
  for (const l of expired) {
    items.push({ kind: "lease_expired", who: { kind: "agents", capabilities: l.todo.requiredCapabilities ?? [] }, goalId: l.todo.goalId, todoId: l.todoId, title: l.todo.title, previousOwner: l.ownerId, since: l.expiresAt });
  }
  for (const r of interrupted) {
    items.push({
      kind: "run_interrupted",
      who: { kind: "agents", capabilities: r.goal.todos[0]?.requiredCapabilities ?? [] },
      goalId: r.goalId,
      runId: r.id,
      agentId: r.agentId,
      summary: r.summary,
      since: r.startedAt,
      action: { kind: "resume_run", runId: r.id, command: `npm run agent -- --run-id ${r.id} --device <spec>` },
    });
  }
  for (const g of done) {
    items.push({ kind: "goal_done", who: { kind: "members", roles: ["admin", "operator"] }, goalId: g.id, title: g.title, since: g.todos[0]!.updatedAt, action: { kind: "complete_goal", goalId: g.id } });
  }
  for (const t of blocked) {
    items.push({ kind: "todo_blocked", who: { kind: "planner" }, goalId: t.goalId, todoId: t.id, title: t.title, reason: t.reason, since: t.updatedAt });
  }
  const usages = await Promise.all(policies.map((p) => policyUsage(db, p.scope === "goal" ? { goalId: p.goalId, at } : { agentId: p.agentId, at })));
  const seen = new Set<string>();
  for (const u of usages.flat()) {
    if (!u.exhausted || seen.has(u.policyId)) continue;
    seen.add(u.policyId);
    items.push({
      kind: "quota_exhausted",
      who: { kind: "members", roles: ["admin"] },
      goalId: u.scope === "goal" ? u.subjectId : null,
      policyId: u.policyId,
      scope: u.scope,
      subjectId: u.subjectId,
      message: `Quota exhausted: ${describeRemaining(u)}. Raise the limit or wait for the window.`,
      retryAfterMs: u.windowResetsInMs,
    });
  }
  const end = offset + i.limit;
  return { items: items.slice(offset, end), nextCursor: items.length > end ? String(end) : null };
}
