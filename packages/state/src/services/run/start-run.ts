import { z } from "zod";
import type { Run } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, jsonObject, JSON_CAPS } from "../../domain/schemas.ts";
import { actorOf, clockDate, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

export const StartRunInput = z.object({ id: Id.optional(), goalId: Id, todoId: Id.optional(), agentId: Id, checkpoint: jsonObject(JSON_CAPS.checkpoint).default({}) });
export type StartRunInput = z.input<typeof StartRunInput>;

export async function startRun(db: DbOrTx, raw: StartRunInput, ctx?: OperatorContext): Promise<Run> {
  const i = parseInput(StartRunInput, raw, "run.start");
  return inTx(db, async (tx) => {
    const [goal, agent] = await Promise.all([tx.goal.findUnique({ where: { id: i.goalId }, select: { status: true } }), tx.agent.findUnique({ where: { id: i.agentId }, select: { id: true } })]);
    if (!goal) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    if (!agent) throw new StateError("NOT_FOUND", `Agent ${i.agentId} is not registered.`, { agentId: i.agentId });
    if (goal.status !== "active") throw new StateError("PRECONDITION_FAILED", `Goal ${i.goalId} is ${goal.status}; resume it before starting a run.`, { goalId: i.goalId, goalStatus: goal.status });
    const at = clockDate(ctx);
    const run = await tx.run.create({
      data: { id: i.id ?? randomId("run"), goalId: i.goalId, todoId: i.todoId ?? null, agentId: i.agentId, checkpoint: i.checkpoint as object, ...(at ? { startedAt: at } : {}) },
    });
    await appendEvent(tx, { operator: "run.start", actor: actorOf(ctx, i.agentId), subjectId: run.id, goalId: i.goalId, payload: { todoId: run.todoId } }, ctx);
    return run;
  });
}
