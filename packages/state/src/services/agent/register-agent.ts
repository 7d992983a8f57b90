import { z } from "zod";
import type { Agent } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Capabilities, Id, JsonObject, ShortText } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";

export const RegisterAgentInput = z.object({
  id: Id,
  name: ShortText,
  /** e.g. "browser-tab", "cli", "worker". */
  kind: z.string().trim().min(1).max(100),
  capabilities: Capabilities.default([]),
  meta: JsonObject.default({}),
});
export type RegisterAgentInput = z.input<typeof RegisterAgentInput>;

/** Registers an agent, or updates its name, kind and capabilities if it registered before. */
export async function registerAgent(db: DbOrTx, raw: RegisterAgentInput, ctx?: OperatorContext): Promise<Agent> {
  const i = parseInput(RegisterAgentInput, raw, "agent.register");
  return inTx(db, async (tx) => {
    const at = atParam(ctx);
    const agent = await tx.agent.upsert({
      where: { id: i.id },
      create: { id: i.id, name: i.name, kind: i.kind, capabilities: i.capabilities, meta: i.meta as object, ...(at ? { heartbeatAt: at, createdAt: at } : {}) },
      update: { name: i.name, kind: i.kind, capabilities: i.capabilities, meta: i.meta as object, ...(at ? { heartbeatAt: at } : { heartbeatAt: new Date() }) },
    });
    await appendEvent(tx, { operator: "agent.register", actor: actorOf(ctx, i.id), subjectId: i.id, payload: { name: i.name, kind: i.kind, capabilities: i.capabilities } }, ctx);
    return agent;
  });
}

export const HeartbeatAgentInput = z.object({ agentId: Id });
export type HeartbeatAgentInput = z.input<typeof HeartbeatAgentInput>;

/** Marks the agent alive. Leases are renewed separately (renewLease): liveness is not ownership. */
export async function heartbeatAgent(db: DbOrTx, raw: HeartbeatAgentInput, ctx?: OperatorContext): Promise<{ agentId: string; heartbeatAt: Date }> {
  const i = parseInput(HeartbeatAgentInput, raw, "agent.heartbeat");
  return inTx(db, async (tx) => {
    const at = atParam(ctx);
    const rows = await tx.$queryRaw<{ heartbeatAt: Date }[]>`
      UPDATE "Agent" SET "heartbeatAt" = COALESCE(${at}::timestamptz, now()) WHERE "id" = ${i.agentId} RETURNING "heartbeatAt"`;
    if (!rows[0]) throw new StateError("NOT_FOUND", `Agent ${i.agentId} is not registered; register it first.`, { agentId: i.agentId });
    await appendEvent(tx, { operator: "agent.heartbeat", actor: actorOf(ctx, i.agentId), subjectId: i.agentId }, ctx);
    return { agentId: i.agentId, heartbeatAt: rows[0].heartbeatAt };
  });
}
