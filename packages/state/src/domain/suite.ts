// The words and arithmetic of task suites: a suite run's statuses, what counts as a success, and the success rate's
// confidence interval (Wilson's score interval). Pure: the runner, the API and the web app share it.

/** running: attempts are being recorded; completed: every attempt ran; failed: the runner stopped before that. */
export const SUITE_RUN_STATUSES = ["running", "completed", "failed"] as const;
export type SuiteRunStatus = (typeof SUITE_RUN_STATUSES)[number];

/** An attempt succeeds when the task's evaluator gives it full marks (every weighted check, no failIf rule). */
export function isSuccessfulAttempt(a: { score: number }): boolean {
  return a.score >= 1;
}

export interface RateInterval {
  /** Successes over attempts (0 when there are none). */
  rate: number;
  low: number;
  high: number;
}

/**
 * The success rate with its 95% Wilson score interval (z = 1.96). Written here rather than taken from a package: it is
 * one closed formula, and the statistics packages on npm that carry it bring far more than this one function.
 * Unlike the normal approximation it stays inside [0, 1] and is honest at 0/n and n/n.
 */
export function wilsonInterval(successes: number, attempts: number, z = 1.96): RateInterval {
  if (attempts <= 0) return { rate: 0, low: 0, high: 0 };
  const p = successes / attempts;
  const z2 = z * z;
  const denom = 1 + z2 / attempts;
  const centre = (p + z2 / (2 * attempts)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / attempts + z2 / (4 * attempts * attempts))) / denom;
  return { rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
