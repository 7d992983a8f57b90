// A suite run begins: which tasks, where from, how many seeds and trials, which perturbations, under which model
// profile and with which settings (models, adapters, sampling, the prompts' fingerprint) — what its figures depend on.
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { SuiteSettings } from "../../domain/suite.ts";
import { actorOf, appendEvent, currentTime, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { suiteRunViewOf, type SuiteRunView } from "./suite-run-view.ts";

export const StartSuiteRunInput = z.object({
  workspaceId: Id,
  /** The model profile's name (never its endpoints' keys). */
  modelProfile: Text.trim().min(1).max(200),
  /** The task glob, e.g. "social_*" or "*". */
  tasks: Text.trim().min(1).max(500),
  /** "pack", or the folder the scenario files came from. */
  scenarios: Text.trim().min(1).max(1000),
  seeds: z.number().int().min(1).max(1000),
  /** Attempts per task and seed under the same settings. */
  trials: z.number().int().min(1).max(100).default(1),
  /**
   * What the figures depend on (models, adapters, sampling, the prompts' fingerprint); validated, never a key. A
   * runner that sends none is recorded as "settings not recorded", and a comparison says so.
   */
  settings: SuiteSettings.optional(),
  perturbations: z.array(Text.trim().min(1).max(50)).max(20).default([]),
  /** What attempts learn from: the workspace's learning at the suite's start (isolated), or each other's (shared). Recorded in the suite.start Event. */
  learning: z.enum(["isolated", "shared"]).default("isolated"),
});
export type StartSuiteRunInput = z.input<typeof StartSuiteRunInput>;

export async function startSuiteRun(db: DbOrTx, raw: StartSuiteRunInput, ctx?: OperatorContext): Promise<SuiteRunView> {
  const i = parseInput(StartSuiteRunInput, raw, "suite.start");
  return inTx(db, async (tx) => {
    const actor = actorOf(ctx, undefined);
    const row = await tx.suiteRun.create({
      data: {
        id: randomId("suite"),
        workspaceId: i.workspaceId,
        modelProfile: i.modelProfile,
        tasks: i.tasks,
        scenarios: i.scenarios,
        seeds: i.seeds,
        trials: i.trials,
        settings: i.settings ?? {},
        perturbations: i.perturbations,
        createdBy: actor,
        startedAt: await currentTime(tx, ctx),
      },
    });
    await appendEvent(tx, { operator: "suite.start", actor, subjectId: row.id, workspaceId: i.workspaceId, payload: { tasks: i.tasks, seeds: i.seeds, trials: i.trials, modelProfile: i.modelProfile, learning: i.learning, settings: i.settings ?? null } }, ctx);
    return suiteRunViewOf(row);
  });
}
