"use client";
// The workspace's runs, newest first, in pages: each opens its replay. An exported run opens under "Import".
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { Problem } from "../problem.tsx";
import uiStyles from "../ui/ui.module.css";
import { formatWhen } from "./replay-data.ts";
import styles from "./replay.module.css";
import { StatusPill } from "../ui/status-pill.tsx";

export function RunList() {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const runs = useInfiniteQuery(trpc.run.list.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (p) => p.nextCursor ?? undefined }));
  const items = runs.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <div className={uiStyles.page}>
      <header className={uiStyles.pageHead}>
        <h1>Runs</h1>
        <div className={styles.headActions}>
          <Link href="/runs/import" className={uiStyles.button}>
            Open an exported run
          </Link>
        </div>
      </header>
      {runs.error ? (
        <Problem problem={describeProblem(runs.error, apiUrl)} apiUrl={apiUrl} what="the runs" />
      ) : runs.isLoading ? (
        <p>Loading the runs…</p>
      ) : items.length === 0 ? (
        <p className={styles.empty}>No run yet. Start one from a goal on the board; its replay appears here.</p>
      ) : (
        <table className={styles.list} data-testid="run-list">
          <thead>
            <tr>
              <th scope="col">Goal</th>
              <th scope="col">Status</th>
              <th scope="col">Steps</th>
              <th scope="col">Agent</th>
              <th scope="col">Started</th>
              <th scope="col">Grade</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link href={`/runs/${encodeURIComponent(r.id)}`}>{r.goalTitle}</Link>
                </td>
                <td>
                  <StatusPill status={r.status} />
                </td>
                <td>{r.stepCount}</td>
                <td>{r.agentName}</td>
                <td>{formatWhen(r.startedAt)}</td>
                <td>{r.grade ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {runs.hasNextPage ? (
        <div>
          <button type="button" className={uiStyles.button} onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
            {runs.isFetchingNextPage ? "Loading…" : "Show older runs"}
          </button>
        </div>
      ) : null}
    </div>
  );
}
