// What a claim returns, shared by claimTodo (a named todo) and claimNext (the next eligible one).
import type { Lease, Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import type { ClaimRefusal } from "../../domain/vocabulary.ts";
import type { DbOrTx } from "../operator.ts";
import { normalizeTodo } from "./held.ts";

export const DEFAULT_LEASE_TTL_MS = 60_000;

export type ClaimResult =
  /** `duplicate`: a repeated idempotency key; the lease is the one the first call took. */
  | { claimed: true; todo: Todo; lease: Lease; reclaimedFrom: string | null; duplicate: boolean }
  /** `refusal` wip_limit: a WIP limit stood in the way (the runtime waits; `reason` names the limit and who to ask). */
  | { claimed: false; reason: string; refusal?: ClaimRefusal };

export type { ClaimRefusal };

/** The lease a claim with this key took before, or null; CONFLICT when the key is another agent's. */
export async function replayClaim(db: DbOrTx, agentId: string, key: string): Promise<ClaimResult | null> {
  const lease = await db.lease.findUnique({ where: { leaseKey: key }, include: { todo: true } });
  if (!lease) return null;
  if (lease.ownerId !== agentId) {
    throw new StateError("CONFLICT", `Idempotency key ${key} belongs to a lease of ${lease.ownerId}; use a fresh key.`, { currentHolder: lease.ownerId });
  }
  const { todo, ...rest } = lease;
  return { claimed: true, todo: normalizeTodo(todo), lease: rest, reclaimedFrom: null, duplicate: true };
}

export async function requireAgent(db: DbOrTx, agentId: string): Promise<{ capabilities: string[]; workspaceId: string }> {
  const agent = await db.agent.findUnique({ where: { id: agentId }, select: { capabilities: true, workspaceId: true } });
  if (!agent) throw new StateError("NOT_FOUND", `Agent ${agentId} is not registered; register it (agent.register) before claiming.`, { agentId });
  return { capabilities: agent.capabilities ?? [], workspaceId: agent.workspaceId };
}
