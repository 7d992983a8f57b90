// A suite run ends: completed when every attempt ran, failed when the runner stopped before that.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, currentTime, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { suiteRunViewOf, type SuiteRunView } from "./suite-run-view.ts";

export const FinishSuiteRunInput = z.object({ suiteRunId: Id, status: z.enum(["completed", "failed"]) });
export type FinishSuiteRunInput = z.input<typeof FinishSuiteRunInput>;

export async function finishSuiteRun(db: DbOrTx, raw: FinishSuiteRunInput, ctx?: OperatorContext): Promise<SuiteRunView> {
  const i = parseInput(FinishSuiteRunInput, raw, "suite.finish");
  return inTx(db, async (tx) => {
    const rows = await tx.$queryRaw<{ status: string }[]>`SELECT "status" FROM "SuiteRun" WHERE "id" = ${i.suiteRunId} FOR UPDATE`;
    const current = rows[0];
    if (!current) throw new StateError("NOT_FOUND", `Suite run ${i.suiteRunId} does not exist.`, { suiteRunId: i.suiteRunId });
    // finishing again the same way is a retry: the first finish stands
    if (current.status === i.status) return suiteRunViewOf(await tx.suiteRun.findUniqueOrThrow({ where: { id: i.suiteRunId } }));
    if (current.status !== "running") {
      throw new StateError("ILLEGAL_TRANSITION", `Suite run ${i.suiteRunId} already ended as ${current.status}.`, { suiteRunId: i.suiteRunId, status: current.status });
    }
    const row = await tx.suiteRun.update({ where: { id: i.suiteRunId }, data: { status: i.status, endedAt: await currentTime(tx, ctx) } });
    await appendEvent(tx, { operator: "suite.finish", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: row.workspaceId, payload: { status: i.status } }, ctx);
    return suiteRunViewOf(row);
  });
}
