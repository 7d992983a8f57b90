// The API's rows in the port's shapes: the same words, Dates as epoch milliseconds, JSON as plain objects.
import type { RouterOutputs } from "@phoneloop/api/contract";
import type { Evidence, EvidenceKind, Goal, Lease, Run, Todo, TurnResultKind } from "@phoneloop/agent/ports";

type ApiTodo = RouterOutputs["todo"]["list"]["items"][number];
type ApiGoal = RouterOutputs["goal"]["get"];
type ApiLease = Extract<RouterOutputs["todo"]["claimNext"], { claimed: true }>["lease"];
type ApiEvidence = RouterOutputs["evidence"]["list"]["items"][number];
type ApiRun = RouterOutputs["run"]["start"];

/** A todo row; one read by todo.list also carries its open gate. */
export function todoOf(t: Omit<ApiTodo, "holder" | "openGate"> & { openGate?: ApiTodo["openGate"] }): Todo {
  return {
    id: t.id,
    goalId: t.goalId,
    position: t.position,
    title: t.title,
    detail: t.detail,
    kind: t.kind,
    appHint: t.appHint,
    requiredCapabilities: t.requiredCapabilities ?? [],
    inputs: t.inputs ?? [],
    outputs: t.outputs ?? [],
    values: objectOf(t.values),
    state: t.state,
    attempts: t.attempts,
    maxAttempts: t.maxAttempts,
    lastResult: t.lastResult as TurnResultKind | null,
    reason: t.reason,
    supersededById: t.supersededById,
    openGate: t.openGate ?? null,
  };
}

export function goalOf(g: ApiGoal): Goal {
  return { id: g.id, title: g.title, objective: g.objective, bounds: g.bounds, nonGoals: g.nonGoals, acceptance: g.acceptance, status: g.status };
}

export function leaseOf(l: ApiLease): Lease {
  return { id: l.id, todoId: l.todoId, ownerId: l.ownerId, leaseKey: l.leaseKey, epoch: l.epoch, ttlMs: l.ttlMs, expiresAt: new Date(l.expiresAt).getTime() };
}

export function evidenceOf(e: ApiEvidence): Evidence {
  return {
    id: e.id,
    goalId: e.goalId,
    runId: e.runId,
    todoId: e.todoId,
    stepIndex: e.stepIndex,
    kind: e.kind as EvidenceKind,
    summary: e.summary,
    data: objectOf(e.data),
    blobSha256: e.blobSha256,
    createdAt: new Date(e.createdAt).getTime(),
  };
}

export function runOf(r: ApiRun): Run {
  return { id: r.id, goalId: r.goalId, agentId: r.agentId, status: r.status, endReason: (r.endReason ?? null) as Run["endReason"] };
}

export function objectOf(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
