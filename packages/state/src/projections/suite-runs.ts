// Suite runs for the web app: a page of them (newest first) with their figures, and one with every attempt.
import { z } from "zod";
import { StateError } from "../domain/errors.ts";
import { parseInput } from "../domain/input.ts";
import { pageOf, PageFields, type Page } from "../domain/page.ts";
import { Id } from "../domain/schemas.ts";
import { isSuccessfulAttempt, wilsonInterval, type RateInterval } from "../domain/suite.ts";
import type { DbOrTx } from "../services/operator.ts";
import { suiteAttemptViewOf, suiteRunViewOf, type SuiteAttemptView, type SuiteRunView } from "../services/suite/suite-run-view.ts";
import { cursorOf, keysetPage, pageOrder } from "./page-query.ts";

export interface SuiteFigures {
  attempts: number;
  successes: number;
  /** The success rate with its 95% Wilson interval. */
  successRate: RateInterval;
  meanSteps: number;
  meanInputTokens: number;
  meanCostMicroUsd: number;
  costMicroUsd: number;
  /** The median attempt's wall time. */
  p50DurationMs: number;
}

type Figured = Pick<SuiteAttemptView, "score" | "steps" | "inputTokens" | "costMicroUsd" | "durationMs">;

export function suiteFigures(attempts: Figured[]): SuiteFigures {
  const n = attempts.length;
  const mean = (f: (a: Figured) => number) => (n ? attempts.reduce((s, a) => s + f(a), 0) / n : 0);
  const successes = attempts.filter(isSuccessfulAttempt).length;
  const durations = attempts.map((a) => a.durationMs).sort((a, b) => a - b);
  return {
    attempts: n,
    successes,
    successRate: wilsonInterval(successes, n),
    meanSteps: mean((a) => a.steps),
    meanInputTokens: mean((a) => a.inputTokens),
    meanCostMicroUsd: mean((a) => a.costMicroUsd),
    costMicroUsd: attempts.reduce((s, a) => s + a.costMicroUsd, 0),
    p50DurationMs: n ? durations[Math.ceil(n / 2) - 1]! : 0,
  };
}

export const SuiteRunListInput = z.object({ workspaceId: Id, ...PageFields });
export type SuiteRunListInput = z.input<typeof SuiteRunListInput>;

export type SuiteRunListItem = SuiteRunView & { figures: SuiteFigures };

/** A page of suite runs, newest first; the cursor is opaque. */
const SUITE_RUN_ORDER = pageOrder(["startedAt", "desc", Date], ["id", "asc", String]);

export async function suiteRunList(db: DbOrTx, raw: SuiteRunListInput): Promise<Page<SuiteRunListItem>> {
  const i = parseInput(SuiteRunListInput, raw, "suite.list");
  const { items, nextCursor } = pageOf(
    await db.suiteRun.findMany(keysetPage(SUITE_RUN_ORDER, i, { workspaceId: i.workspaceId })),
    i.limit,
    cursorOf(SUITE_RUN_ORDER),
  );
  const attempts = await db.suiteAttempt.findMany({
    where: { suiteRunId: { in: items.map((r) => r.id) } },
    select: { suiteRunId: true, score: true, steps: true, inputTokens: true, costMicroUsd: true, durationMs: true },
  });
  return {
    items: items.map((r) => ({
      ...suiteRunViewOf(r),
      figures: suiteFigures(attempts.filter((a) => a.suiteRunId === r.id).map((a) => ({ ...a, costMicroUsd: Number(a.costMicroUsd) }))),
    })),
    nextCursor,
  };
}

export const SuiteRunDetailInput = z.object({ suiteRunId: Id });
export type SuiteRunDetailInput = z.input<typeof SuiteRunDetailInput>;

export type SuiteRunDetail = SuiteRunView & { figures: SuiteFigures; attempts: SuiteAttemptView[] };

/** One suite run with every attempt, by task, seed and trial. */
export async function suiteRunDetail(db: DbOrTx, raw: SuiteRunDetailInput): Promise<SuiteRunDetail> {
  const i = parseInput(SuiteRunDetailInput, raw, "suite.get");
  const run = await db.suiteRun.findUnique({ where: { id: i.suiteRunId }, include: { attempts: { orderBy: [{ taskId: "asc" }, { seed: "asc" }, { trial: "asc" }] } } });
  if (!run) throw new StateError("NOT_FOUND", `Suite run ${i.suiteRunId} does not exist.`, { suiteRunId: i.suiteRunId });
  const attempts = run.attempts.map(suiteAttemptViewOf);
  return { ...suiteRunViewOf(run), figures: suiteFigures(attempts), attempts };
}
