import { z } from "zod";
import type { Run } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, jsonObject, JSON_CAPS } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockRun, requireRunning } from "./run-guards.ts";

export const SaveCheckpointInput = z.object({ runId: Id, agentId: Id.optional(), checkpoint: jsonObject(JSON_CAPS.checkpoint) });
export type SaveCheckpointInput = z.input<typeof SaveCheckpointInput>;

export async function saveCheckpoint(db: DbOrTx, raw: SaveCheckpointInput, ctx?: OperatorContext): Promise<Run> {
  const i = parseInput(SaveCheckpointInput, raw, "run.saveCheckpoint");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    requireRunning(run, i.agentId, "checkpoint");
    const saved = await tx.run.update({ where: { id: run.id }, data: { checkpoint: i.checkpoint as object } });
    await appendEvent(tx, { operator: "run.saveCheckpoint", actor: actorOf(ctx, i.agentId ?? run.agentId), subjectId: run.id, goalId: run.goalId, payload: { keys: Object.keys(i.checkpoint) } }, ctx);
    return saved;
  });
}
