// What a todo, lease, gate or run carries depends on its status: discriminated unions over the rows.
import type { TodoState } from "./todo-transitions.ts";

export interface HolderView {
  leaseId: string;
  ownerId: string;
  expiresAt: Date;
  epoch: number;
}

export type TodoStatus =
  | { state: "pending" }
  | ({ state: "claimed" | "running" | "validating" } & { holder: HolderView | null })
  | { state: "done"; result: string | null }
  | { state: "failed"; reason: string | null }
  | { state: "blocked"; reason: string | null }
  | { state: "superseded"; reason: string | null; supersededById: string | null };

export function todoStatusOf(
  todo: { state: TodoState; lastResult: string | null; reason: string | null; supersededById: string | null },
  lease: { id: string; ownerId: string; expiresAt: Date; epoch: number } | null,
): TodoStatus {
  switch (todo.state) {
    case "pending":
      return { state: "pending" };
    case "claimed":
    case "running":
    case "validating":
      return {
        state: todo.state,
        holder: lease ? { leaseId: lease.id, ownerId: lease.ownerId, expiresAt: lease.expiresAt, epoch: lease.epoch } : null,
      };
    case "done":
      return { state: "done", result: todo.lastResult };
    case "failed":
      return { state: "failed", reason: todo.reason };
    case "blocked":
      return { state: "blocked", reason: todo.reason };
    case "superseded":
      return { state: "superseded", reason: todo.reason, supersededById: todo.supersededById };
  }
}

export type LeaseStatusView =
  | { status: "active"; ownerId: string; expiresAt: Date; epoch: number }
  | { status: "released" | "expired" | "transferred"; endedAt: Date | null };

export type GateStatusView =
  | { status: "open"; question: string; options: string[]; answerRoles: string[] }
  | { status: "approved" | "denied" | "answered"; decision: string; answer: string | null; rationale: string | null; resolvedBy: string }
  | { status: "expired" };
