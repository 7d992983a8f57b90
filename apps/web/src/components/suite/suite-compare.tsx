"use client";
// Two suite runs side by side: the overall success rate with its 95% Wilson interval, the settings each ran under
// (differences flagged), then per task the success rate with its interval and the mean score, steps, tokens and cost
// over the seeds and trials, each attempt linking to its replay.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { Problem } from "../problem.tsx";
import { AttemptLink } from "./attempt-links.tsx";
import { SuiteSettingsCompare } from "./suite-settings.tsx";
import { rateText, round1, scoreClass, usd, when } from "./suite-format.ts";
import { byTask, type SuiteRunDetail } from "./suite-tasks.ts";
import styles from "./suite.module.css";
import uiStyles from "../ui/ui.module.css";

export function SuiteCompare({ a, b }: { a: string; b: string }) {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const qa = useQuery(trpc.suite.get.queryOptions({ suiteRunId: a }));
  const qb = useQuery(trpc.suite.get.queryOptions({ suiteRunId: b }));
  const error = qa.error ?? qb.error;
  if (error) return <Problem problem={describeProblem(error, apiUrl)} apiUrl={apiUrl} what="the suite runs to compare" />;
  if (!qa.data || !qb.data) return <p>Loading the two suite runs…</p>;
  const sides = [qa.data, qb.data] as const;
  const tasks = [byTask(qa.data.attempts), byTask(qb.data.attempts)] as const;
  const taskIds = [...new Set([...tasks[0].keys(), ...tasks[1].keys()])].sort();
  const name = (s: SuiteRunDetail, i: number) => `${i === 0 ? "A" : "B"}: ${s.modelProfile}`;
  return (
    <div className={uiStyles.page}>
      <header className={uiStyles.pageHead}>
        <div>
          <p className={uiStyles.meta}>
            <Link href="/suites">Suites</Link>
          </p>
          <h1>Compare suite runs</h1>
        </div>
      </header>
      <section className={styles.cards} aria-label="Overall">
        {sides.map((s, i) => (
          <div className={styles.card} key={s.id} data-testid={`suite-side-${i === 0 ? "a" : "b"}`}>
            <h2>
              <Link href={`/suites/${encodeURIComponent(s.id)}`}>{name(s, i)}</Link>
            </h2>
            <span className={styles.hint}>
              {when(s.startedAt)} · <code>{s.tasks}</code> · {s.seeds} seed{s.seeds === 1 ? "" : "s"}
              {s.trials > 1 ? ` × ${s.trials} trials` : ""} · perturbations: {s.perturbations.length ? s.perturbations.join(", ") : "none"}
            </span>
            <span className={styles.rate}>{s.figures.attempts ? `${Math.round(s.figures.successRate.rate * 1000) / 10}%` : "—"}</span>
            <span className={styles.interval}>
              success rate, {s.figures.successes} of {s.figures.attempts}; {s.figures.attempts ? rateText(s.figures.successRate) : "no attempts"}
            </span>
            <span className={styles.interval}>
              {round1(s.figures.meanSteps)} steps · {Math.round(s.figures.meanInputTokens)} input tokens · {usd(s.figures.meanCostMicroUsd)} per attempt
            </span>
          </div>
        ))}
      </section>
      <SuiteSettingsCompare a={qa.data} b={qb.data} />
      <table className={styles.table} data-testid="suite-compare" aria-label="Per task, over seeds and trials">
        <thead>
          <tr>
            <th scope="col" rowSpan={2}>
              Task
            </th>
            {sides.map((s, i) => (
              <th scope="colgroup" colSpan={6} key={s.id} className={styles.sideA}>
                {name(s, i)}
              </th>
            ))}
          </tr>
          <tr>
            {sides.map((s) =>
              ["Success (95% CI)", "Score", "Steps", "Tokens", "Cost", "Attempts"].map((h, k) => (
                <th scope="col" key={`${s.id}-${h}`} className={`${k < 5 ? styles.num : ""} ${k === 0 ? styles.sideA : ""}`}>
                  {h}
                </th>
              )),
            )}
          </tr>
        </thead>
        <tbody>
          {taskIds.map((id) => (
            <tr key={id}>
              <th scope="row">{id}</th>
              {tasks.map((t, i) => {
                const f = t.get(id);
                if (!f)
                  return (
                    <td key={i} colSpan={6} className={`${styles.hint} ${styles.sideA}`}>
                      not in this suite run
                    </td>
                  );
                return [
                  <td key={`${i}-success`} className={`${styles.num} ${styles.sideA}`}>
                    {f.successes}/{f.attempts.length} · {rateText(f.successRate)}
                  </td>,
                  <td key={`${i}-score`} className={`${styles.num} ${styles[scoreClass(f.score)]}`}>
                    {f.score.toFixed(2)}
                  </td>,
                  <td key={`${i}-steps`} className={styles.num}>
                    {round1(f.steps)}
                  </td>,
                  <td key={`${i}-tokens`} className={styles.num}>
                    {Math.round(f.tokens)}
                  </td>,
                  <td key={`${i}-cost`} className={styles.num}>
                    {usd(f.costMicroUsd)}
                  </td>,
                  <td key={`${i}-attempts`}>
                    <span className={styles.attempts}>
                      {f.attempts.map((att) => (
                        <AttemptLink key={att.id} attempt={att} />
                      ))}
                    </span>
                  </td>,
                ];
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
