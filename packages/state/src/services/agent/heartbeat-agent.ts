import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";

export const HeartbeatAgentInput = z.object({ agentId: Id });
export type HeartbeatAgentInput = z.input<typeof HeartbeatAgentInput>;

/** Marks the agent alive. Leases are renewed separately (renewLease): liveness is not ownership. */
export async function heartbeatAgent(db: DbOrTx, raw: HeartbeatAgentInput, ctx?: OperatorContext): Promise<{ agentId: string; heartbeatAt: Date }> {
  const i = parseInput(HeartbeatAgentInput, raw, "agent.heartbeat");
  return inTx(db, async (tx) => {
    const at = atParam(ctx);
    const rows = await tx.$queryRaw<{ heartbeatAt: Date; workspaceId: string }[]>`
      UPDATE "Agent" SET "heartbeatAt" = COALESCE(${at}::timestamptz, now()) WHERE "id" = ${i.agentId} RETURNING "heartbeatAt", "workspaceId"`;
    if (!rows[0]) throw new StateError("NOT_FOUND", `Agent ${i.agentId} is not registered; register it first.`, { agentId: i.agentId });
    await appendEvent(tx, { operator: "agent.heartbeat", actor: actorOf(ctx, i.agentId), subjectId: i.agentId, workspaceId: rows[0].workspaceId }, ctx);
    return { agentId: i.agentId, heartbeatAt: rows[0].heartbeatAt };
  });
}
