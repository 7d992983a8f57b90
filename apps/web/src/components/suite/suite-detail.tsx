"use client";
// One suite run: its figures (success rate with its Wilson interval) and every attempt with its replay.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { Problem } from "../problem.tsx";
import { rateText, round1, scoreClass, seconds, usd, when } from "./suite-format.ts";
import styles from "./suite.module.css";
import { StatusPill } from "../ui/status-pill.tsx";
import uiStyles from "../ui/ui.module.css";

export function SuiteDetail({ suiteRunId }: { suiteRunId: string }) {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const q = useQuery(trpc.suite.get.queryOptions({ suiteRunId }));
  if (q.error) return <Problem problem={describeProblem(q.error, apiUrl)} apiUrl={apiUrl} what="the suite run" />;
  if (!q.data) return <p>Loading the suite run…</p>;
  const s = q.data;
  return (
    <div className={uiStyles.page}>
      <header className={uiStyles.pageHead}>
        <div>
          <p className={uiStyles.meta}>
            <Link href="/suites">Suites</Link>
          </p>
          <h1>
            {s.modelProfile} · <code>{s.tasks}</code>
          </h1>
          <p className={uiStyles.meta}>
            Started {when(s.startedAt)} · {s.seeds} seed{s.seeds === 1 ? "" : "s"}
            {s.trials > 1 ? ` × ${s.trials} trials` : ""} · perturbations: {s.perturbations.length ? s.perturbations.join(", ") : "none"} · tasks from {s.scenarios} ·{" "}
            <StatusPill status={s.status} />
          </p>
        </div>
      </header>
      <section className={styles.cards} aria-label="Figures">
        <div className={styles.card}>
          <h2>Success rate</h2>
          <span className={styles.rate}>{s.figures.attempts ? `${Math.round(s.figures.successRate.rate * 1000) / 10}%` : "—"}</span>
          <span className={styles.interval}>
            {s.figures.successes} of {s.figures.attempts} attempts scored 1; {s.figures.attempts ? rateText(s.figures.successRate) : "no attempts yet"}
          </span>
        </div>
        <div className={styles.card}>
          <h2>Per attempt</h2>
          <span>{round1(s.figures.meanSteps)} steps, {Math.round(s.figures.meanInputTokens)} input tokens, {usd(s.figures.meanCostMicroUsd)} on average</span>
          <span className={styles.interval}>
            median {seconds(s.figures.p50DurationMs)}; {usd(s.figures.costMicroUsd)} in all
          </span>
        </div>
      </section>
      {s.attempts.length === 0 ? (
        <p className={styles.empty}>No attempt has ended yet; they appear here as they do.</p>
      ) : (
        <table className={styles.table} data-testid="suite-attempts" aria-label="Attempts">
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col" className={styles.num}>Seed</th>
              <th scope="col" className={styles.num}>Score</th>
              <th scope="col" className={styles.num}>Steps</th>
              <th scope="col" className={styles.num}>Tokens</th>
              <th scope="col" className={styles.num}>Cost</th>
              <th scope="col" className={styles.num}>Time</th>
              <th scope="col">Replay</th>
              <th scope="col">Evaluator</th>
            </tr>
          </thead>
          <tbody>
            {s.attempts.map((a) => (
              <tr key={a.id}>
                <td>{a.taskId}</td>
                <td className={styles.num}>
                  {a.seed}
                  {s.trials > 1 ? ` · trial ${a.trial}` : ""}
                </td>
                <td className={`${styles.num} ${styles[scoreClass(a.score)]}`}>{a.score.toFixed(2)}</td>
                <td className={styles.num}>{a.steps}</td>
                <td className={styles.num}>{a.inputTokens + a.outputTokens}</td>
                <td className={styles.num}>{usd(a.costMicroUsd)}</td>
                <td className={styles.num}>{seconds(a.durationMs)}</td>
                <td>{a.runId ? <Link href={`/runs/${encodeURIComponent(a.runId)}`}>Replay</Link> : "no run"}</td>
                <td className={styles.hint}>{a.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
