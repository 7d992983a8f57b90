import { z } from "zod";
import type { Agent } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { Capabilities, Id, JsonObject, ShortText } from "../../domain/schemas.ts";
import { AGENT_KINDS } from "../../domain/vocabulary.ts";
import { actorOf, appendEvent, atParam, currentTime, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";

export const RegisterAgentInput = z.object({
  id: Id,
  name: ShortText,
  /** browser: a web page's tab; headless: a process (the CLI's agent, a worker). */
  kind: z.enum(AGENT_KINDS),
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
      update: { name: i.name, kind: i.kind, capabilities: i.capabilities, meta: i.meta as object, heartbeatAt: at ?? (await currentTime(tx)) },
    });
    await appendEvent(tx, { operator: "agent.register", actor: actorOf(ctx, i.id), subjectId: i.id, payload: { name: i.name, kind: i.kind, capabilities: i.capabilities } }, ctx);
    return agent;
  });
}
