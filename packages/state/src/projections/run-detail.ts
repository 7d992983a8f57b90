// One run with its last checkpoint and its steps in order: what a resuming worker loads and a replay shows.
import { z } from "zod";
import type { Run, Step } from "../generated/prisma/client.ts";
import { StateError } from "../domain/errors.ts";
import { parseInput } from "../domain/input.ts";
import { Id } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";
import type { Amounts } from "../services/quota/usage.ts";
import { runSpend } from "./spend.ts";

export const RunDetailInput = z.object({ runId: Id });
export type RunDetailInput = z.input<typeof RunDetailInput>;

/** `spent`: what the run spent (its turns' steps, its model calls' tokens and money). */
export type RunDetail = Run & { steps: Step[]; spent: Amounts };

export async function runDetail(db: DbOrTx, raw: RunDetailInput): Promise<RunDetail> {
  const i = parseInput(RunDetailInput, raw, "runDetail");
  const run = await db.run.findUnique({ where: { id: i.runId }, include: { steps: { orderBy: { index: "asc" } } } });
  if (!run) throw new StateError("NOT_FOUND", `Run ${i.runId} does not exist.`, { runId: i.runId });
  return { ...run, spent: await runSpend(db, run.id) };
}
