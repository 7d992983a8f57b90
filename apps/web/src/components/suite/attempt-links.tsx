// An attempt's seed as a link to its replay (or the reason it has none), its score coloured pass / partial / fail.
import Link from "next/link";
import { scoreClass } from "./suite-format.ts";
import type { SuiteAttempt } from "./suite-tasks.ts";
import styles from "./suite.module.css";

export function AttemptLink({ attempt }: { attempt: SuiteAttempt }) {
  const which = `seed ${attempt.seed}${attempt.trial > 1 ? `, trial ${attempt.trial}` : ""}`;
  const label = `${which}: ${attempt.score.toFixed(2)}`;
  if (!attempt.runId) return <span className={styles[scoreClass(attempt.score)]} title={attempt.reason}>{label} (no run)</span>;
  return (
    <Link href={`/runs/${encodeURIComponent(attempt.runId)}`} className={styles[scoreClass(attempt.score)]} title={attempt.reason} aria-label={`Replay of ${attempt.taskId}, ${which}, score ${attempt.score.toFixed(2)}`}>
      {label}
    </Link>
  );
}
