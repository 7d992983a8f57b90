import { z } from "zod";
import type { Step } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { Count, Id, Text, jsonValue } from "../../domain/schemas.ts";
import { actorOf, clockDate, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockRun, requireRunning } from "./run-guards.ts";

export const AppendStepInput = z.object({
  runId: Id,
  agentId: Id.optional(),
  index: Count,
  node: Text.trim().min(1).max(100),
  action: jsonValue().optional(),
  observation: jsonValue().optional(),
  screenSha256: Text.regex(/^[0-9a-f]{64}$/).optional(),
  anomalies: z.array(Text.max(200)).default([]),
  tokens: Count.default(0),
});
export type AppendStepInput = z.input<typeof AppendStepInput>;

/** Appends step `index`; appending the same index again returns the first step (a resumed worker may repeat it). */
export async function appendStep(db: DbOrTx, raw: AppendStepInput, ctx?: OperatorContext): Promise<{ step: Step; created: boolean }> {
  const i = parseInput(AppendStepInput, raw, "run.appendStep");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    const existing = await tx.step.findUnique({ where: { runId_index: { runId: i.runId, index: i.index } } });
    if (existing) return { step: existing, created: false };
    requireRunning(run, i.agentId, "append a step to");
    const at = clockDate(ctx);
    const step = await tx.step.create({
      data: {
        id: randomId("step"),
        runId: i.runId,
        index: i.index,
        node: i.node,
        action: (i.action ?? undefined) as object | undefined,
        observation: (i.observation ?? undefined) as object | undefined,
        screenSha256: i.screenSha256 ?? null,
        anomalies: i.anomalies,
        tokens: i.tokens,
        ...(at ? { createdAt: at } : {}),
      },
    });
    await appendEvent(tx, { operator: "run.appendStep", actor: actorOf(ctx, i.agentId ?? run.agentId), subjectId: step.id, goalId: run.goalId, payload: { runId: run.id, index: i.index, node: i.node, anomalies: i.anomalies } }, ctx);
    return { step, created: true };
  });
}
