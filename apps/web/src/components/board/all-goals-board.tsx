"use client";
// The board across goals: every active goal's todos in one set of lanes, each card naming its goal.
import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { LANE_ORDER, type TodoState } from "../../lib/labels.ts";
import { useStreamState } from "../../lib/live-cache.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { Empty } from "../empty.tsx";
import { LiveBadge } from "../live-badge.tsx";
import { Problem } from "../problem.tsx";
import { useChangedCards } from "./board-view.tsx";
import { Lane, type LaneCard } from "./lane.tsx";
import styles from "./board.module.css";

/** Goals shown side by side; older or finished ones stay on their own boards. */
const MAX_GOALS = 25;

export function AllGoalsBoard() {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const stream = useStreamState();
  const goals = useQuery(trpc.board.goals.queryOptions({}));
  const shown = (goals.data?.items ?? []).filter((g) => g.status === "active" || g.status === "paused").slice(0, MAX_GOALS);
  // The boards' data, the same array while no board changed (combine's result is structurally shared), so the
  // merged lanes below are a new object only when a board is: a new one on every render would make
  // useChangedCards set state on every render, a loop that never lets a navigation away from this page commit.
  const boards = useQueries({ queries: shown.map((g) => trpc.board.get.queryOptions({ goalId: g.id })), combine: (results) => results.map((r) => r.data) });
  const lanes = new Map<TodoState, LaneCard[]>(LANE_ORDER.map((s) => [s, []]));
  for (const b of boards) {
    if (!b) continue;
    for (const lane of b.lanes) for (const card of lane.cards) lanes.get(lane.state)?.push({ card, goalId: b.goal.id, goalTitle: b.goal.title });
  }
  const merged = useMemo(() => (boards.every((b) => b) ? { lanes: boards.flatMap((b) => b!.lanes) } : undefined), [boards]);
  const changed = useChangedCards(merged);

  if (!goals.data) {
    if (goals.error) return <Problem problem={describeProblem(goals.error, apiUrl)} apiUrl={apiUrl} what="the goals" />;
    return <p className={styles.loading}>Loading the board…</p>;
  }
  const total = [...lanes.values()].reduce((n, l) => n + l.length, 0);
  const visible = LANE_ORDER.filter((s) => s !== "superseded" || (lanes.get(s)?.length ?? 0) > 0);
  return (
    <div className={styles.page} data-testid="board-all">
      <header className={styles.head}>
        <div>
          <p className={styles.crumb}>
            <Link href="/">Attention</Link> / All goals
          </p>
          <h1 className={styles.title}>Board across goals</h1>
          <p className={styles.scopeNote}>
            {shown.length} active {shown.length === 1 ? "goal" : "goals"}
            {goals.data.nextCursor !== null || goals.data.items.length > shown.length ? ` (finished ones and beyond the first ${MAX_GOALS} are on their own boards)` : ""}
          </p>
        </div>
        <LiveBadge state={stream} />
      </header>
      {total === 0 ? (
        <Empty title={shown.length === 0 ? "No active goals" : "No todos yet"}>
          <p>{shown.length === 0 ? "Goals appear here once created; each also has its own board." : "Todos appear here as the planner or a teammate adds them."}</p>
        </Empty>
      ) : (
        <div className={styles.lanes}>
          {visible.map((state) => (
            <Lane key={state} state={state} cards={lanes.get(state) ?? []} changed={changed} stepLimit={null} />
          ))}
        </div>
      )}
    </div>
  );
}
