// Registering names an agent in a workspace. An agent id is taken for good by its first registration: another
// workspace, or another agent token than the one it registered with, gets CONFLICT (never a takeover).
import { z } from "zod";
import type { Agent } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Capabilities, Id, JsonObject, ShortText } from "../../domain/schemas.ts";
import { AGENT_KINDS } from "../../domain/vocabulary.ts";
import { actorOf, appendEvent, atParam, currentTime, inTx, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";

export const RegisterAgentInput = z.object({
  id: Id,
  name: ShortText,
  /** browser: a web page's tab; headless: a process (the CLI's agent, a worker). */
  kind: z.enum(AGENT_KINDS),
  capabilities: Capabilities.default([]),
  meta: JsonObject.default({}),
  /** The workspace the agent acts in (the API sets the caller's). */
  workspaceId: Id,
  /** The agent token registering it (the API sets the caller's); the token is bound to this agent id. */
  tokenId: Id.optional(),
});
export type RegisterAgentInput = z.input<typeof RegisterAgentInput>;

/** Registers an agent, or updates its name, kind and capabilities if it registered before. */
export async function registerAgent(db: DbOrTx, raw: RegisterAgentInput, ctx?: OperatorContext): Promise<Agent> {
  const i = parseInput(RegisterAgentInput, raw, "agent.register");
  return inTx(db, async (tx) => {
    const at = atParam(ctx);
    const existing = await tx.agent.findUnique({ where: { id: i.id }, select: { workspaceId: true } });
    if (existing && existing.workspaceId !== i.workspaceId) throw taken(i.id);
    await bindToken(tx, i.id, i.tokenId);
    const agent = await tx.agent.upsert({
      where: { id: i.id },
      create: { id: i.id, workspaceId: i.workspaceId, name: i.name, kind: i.kind, capabilities: i.capabilities, meta: i.meta as object, ...(at ? { heartbeatAt: at, createdAt: at } : {}) },
      update: { name: i.name, kind: i.kind, capabilities: i.capabilities, meta: i.meta as object, heartbeatAt: at ?? (await currentTime(tx)) },
    });
    await appendEvent(tx, { operator: "agent.register", actor: actorOf(ctx, i.id), subjectId: i.id, workspaceId: i.workspaceId, payload: { name: i.name, kind: i.kind, capabilities: i.capabilities } }, ctx);
    return agent;
  });
}

/** The agent id belongs to the token that first registered it; a token registers one agent id. */
async function bindToken(tx: Tx, agentId: string, tokenId: string | undefined): Promise<void> {
  // Locked in one order (the agent's binding, then the token), so two tokens racing for one id cannot both bind.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`phoneloop.agent:${agentId}`}, 0))`;
  const holder = await tx.agentToken.findUnique({ where: { agentId }, select: { id: true } });
  if (!tokenId) {
    if (holder) throw taken(agentId);
    return;
  }
  if (holder && holder.id !== tokenId) throw taken(agentId);
  const token = await tx.agentToken.findUnique({ where: { id: tokenId }, select: { agentId: true } });
  if (!token) throw new StateError("NOT_FOUND", `Agent token ${tokenId} does not exist; ask for a new token.`, { tokenId });
  if (token.agentId && token.agentId !== agentId) {
    throw new StateError("CONFLICT", `This agent token acts as agent ${token.agentId}; register under that id, or use a new token for another agent.`, {
      tokenId,
      agentId: token.agentId,
    });
  }
  if (!token.agentId) await tx.agentToken.update({ where: { id: tokenId }, data: { agentId } });
}

function taken(agentId: string): StateError {
  return new StateError("CONFLICT", `Agent id ${agentId} belongs to another agent; register under another id.`, { agentId });
}
