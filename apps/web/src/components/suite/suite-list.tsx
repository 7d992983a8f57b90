"use client";
// The workspace's suite runs, newest first, with their figures; pick two to compare side by side.
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { Problem } from "../problem.tsx";
import uiStyles from "../ui/ui.module.css";
import { rateText, round1, usd, when } from "./suite-format.ts";
import styles from "./suite.module.css";
import { StatusPill } from "../ui/status-pill.tsx";

export function SuiteList() {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const suites = useInfiniteQuery(trpc.suite.list.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (p) => p.nextCursor ?? undefined }));
  const items = suites.data?.pages.flatMap((p) => p.items) ?? [];
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)));
  return (
    <div className={uiStyles.page}>
      <header className={uiStyles.pageHead}>
        <div>
          <h1>Suites</h1>
          <p className={uiStyles.meta}>
            Task suites run with <code>npm run suite</code>: each attempt is one task under one seed, scored by the task&apos;s evaluator, with its replay.
          </p>
        </div>
      </header>
      {suites.error ? (
        <Problem problem={describeProblem(suites.error, apiUrl)} apiUrl={apiUrl} what="the suite runs" />
      ) : suites.isLoading ? (
        <p>Loading the suite runs…</p>
      ) : items.length === 0 ? (
        <p className={styles.empty}>
          No suite run yet. Run one from a terminal, e.g. <code>npm run suite -- --tasks &quot;*&quot; --seeds 3</code>; it appears here as its attempts end.
        </p>
      ) : (
        <>
          <div className={styles.compareBar}>
            {picked.length === 2 ? (
              <Link className={`${uiStyles.button} ${uiStyles.primary}`} href={`/suites/compare?a=${encodeURIComponent(picked[0]!)}&b=${encodeURIComponent(picked[1]!)}`}>
                Compare the two picked suite runs
              </Link>
            ) : (
              <span className={styles.hint}>Tick two suite runs to compare them side by side ({picked.length} of 2 picked).</span>
            )}
          </div>
          <table className={styles.table} data-testid="suite-list" aria-label="Suite runs, newest first">
            <thead>
              <tr>
                <th scope="col">Compare</th>
                <th scope="col">Started</th>
                <th scope="col">Model profile</th>
                <th scope="col">Tasks</th>
                <th scope="col" className={styles.num}>Seeds</th>
                <th scope="col">Perturbations</th>
                <th scope="col">Status</th>
                <th scope="col" className={styles.num}>Attempts</th>
                <th scope="col">Success rate</th>
                <th scope="col" className={styles.num}>Mean steps</th>
                <th scope="col" className={styles.num}>Cost</th>
              </tr>
            </thead>
            <tbody>
              {items.map((s) => (
                <tr key={s.id}>
                  <td>
                    <input type="checkbox" checked={picked.includes(s.id)} onChange={() => toggle(s.id)} aria-label={`Compare the suite run of ${when(s.startedAt)} (${s.modelProfile})`} />
                  </td>
                  <td>
                    <Link href={`/suites/${encodeURIComponent(s.id)}`}>{when(s.startedAt)}</Link>
                  </td>
                  <td>{s.modelProfile}</td>
                  <td>
                    <code>{s.tasks}</code> {s.scenarios === "pack" ? "" : <span className={styles.hint}>from {s.scenarios}</span>}
                  </td>
                  <td className={styles.num}>{s.seeds}</td>
                  <td>{s.perturbations.length ? s.perturbations.join(", ") : "none"}</td>
                  <td>
                    <StatusPill status={s.status} />
                  </td>
                  <td className={styles.num}>{s.figures.attempts}</td>
                  <td>{s.figures.attempts ? rateText(s.figures.successRate) : "—"}</td>
                  <td className={styles.num}>{round1(s.figures.meanSteps)}</td>
                  <td className={styles.num}>{usd(s.figures.costMicroUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {suites.hasNextPage ? (
        <div>
          <button type="button" className={uiStyles.button} onClick={() => void suites.fetchNextPage()} disabled={suites.isFetchingNextPage}>
            {suites.isFetchingNextPage ? "Loading…" : "Show older suite runs"}
          </button>
        </div>
      ) : null}
    </div>
  );
}
