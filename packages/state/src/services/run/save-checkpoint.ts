import { z } from "zod";
import type { Run } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, jsonObject, JSON_CAPS } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type EventInput, type OperatorContext, type Tx } from "../operator.ts";
import { lockRun, requireRunning } from "./run-guards.ts";

export const SaveCheckpointInput = z.object({ runId: Id, agentId: Id.optional(), checkpoint: jsonObject(JSON_CAPS.checkpoint) });
export type SaveCheckpointInput = z.input<typeof SaveCheckpointInput>;

export async function saveCheckpoint(db: DbOrTx, raw: SaveCheckpointInput, ctx?: OperatorContext): Promise<Run> {
  const i = parseInput(SaveCheckpointInput, raw, "run.saveCheckpoint");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    await saveCheckpointOf(tx, run, i, ctx);
    return { ...run, checkpoint: i.checkpoint as Run["checkpoint"] };
  });
}

/** saveCheckpoint on a run the caller locked in this transaction (a step record); its Event goes into `events` when given. */
export async function saveCheckpointOf(tx: Tx, run: Run, i: z.output<typeof SaveCheckpointInput>, ctx?: OperatorContext, events?: EventInput[]): Promise<void> {
  requireRunning(run, i.agentId, "checkpoint");
  await tx.$executeRaw`UPDATE "Run" SET "checkpoint" = ${JSON.stringify(i.checkpoint)}::jsonb WHERE "id" = ${run.id}`;
  const event: EventInput = { operator: "run.saveCheckpoint", actor: actorOf(ctx, i.agentId ?? run.agentId), subjectId: run.id, goalId: run.goalId, payload: { keys: Object.keys(i.checkpoint) } };
  if (events) events.push(event);
  else await appendEvent(tx, event, ctx);
}
