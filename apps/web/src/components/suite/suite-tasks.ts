// A suite run's attempts by task: successes with their Wilson interval, the mean of each figure over the task's
// seeds and trials, and the attempts themselves.
import type { RouterOutputs } from "@phoneloop/client";
import { isSuccessfulAttempt, wilsonInterval, type RateInterval } from "@phoneloop/state/domain";

export type SuiteRunDetail = RouterOutputs["suite"]["get"];
export type SuiteAttempt = SuiteRunDetail["attempts"][number];

export interface TaskFigures {
  taskId: string;
  attempts: SuiteAttempt[];
  successes: number;
  successRate: RateInterval;
  score: number;
  steps: number;
  tokens: number;
  costMicroUsd: number;
}

export function byTask(attempts: SuiteAttempt[]): Map<string, TaskFigures> {
  const groups = new Map<string, SuiteAttempt[]>();
  for (const a of attempts) groups.set(a.taskId, [...(groups.get(a.taskId) ?? []), a]);
  const out = new Map<string, TaskFigures>();
  for (const [taskId, list] of groups) {
    const mean = (f: (a: SuiteAttempt) => number) => list.reduce((s, a) => s + f(a), 0) / list.length;
    const successes = list.filter(isSuccessfulAttempt).length;
    out.set(taskId, { taskId, attempts: list, successes, successRate: wilsonInterval(successes, list.length), score: mean((a) => a.score), steps: mean((a) => a.steps), tokens: mean((a) => a.inputTokens + a.outputTokens), costMicroUsd: mean((a) => a.costMicroUsd) });
  }
  return out;
}
