// A reviewer grades a run's replay: A (as intended), B (done, extra questions), C (done with a side effect),
// D (off course), with a note. The grade and who gave it are kept on the run; a new grade replaces the last, and
// every grade is an Event (the history of grades).
import { z } from "zod";
import type { Run } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { RUN_GRADES } from "../../domain/run.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { actorOf, appendEvent, currentTime, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";

export const GradeRunInput = z.object({
  runId: Id,
  grade: z.enum(RUN_GRADES),
  note: Text.trim().max(2000).default(""),
});
export type GradeRunInput = z.input<typeof GradeRunInput>;

export async function gradeRun(db: DbOrTx, raw: GradeRunInput, ctx?: OperatorContext): Promise<Run> {
  const i = parseInput(GradeRunInput, raw, "run.grade");
  const actor = actorOf(ctx, undefined);
  return inTx(db, async (tx) => {
    const run = await tx.run.findUnique({ where: { id: i.runId }, select: { id: true, goalId: true } });
    if (!run) throw new StateError("NOT_FOUND", `Run ${i.runId} does not exist.`, { runId: i.runId });
    const graded = await tx.run.update({
      where: { id: run.id },
      data: { grade: i.grade, gradeNote: i.note || null, gradedBy: actor, gradedAt: await currentTime(tx, ctx) },
    });
    await appendEvent(tx, { operator: "run.grade", actor, subjectId: run.id, goalId: run.goalId, payload: { grade: i.grade, note: i.note } }, ctx);
    return graded;
  });
}
