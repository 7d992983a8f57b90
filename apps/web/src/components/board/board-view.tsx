"use client";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { useApi } from "../../lib/api.tsx";
import { LANE_HINT, LANE_LABEL, LANE_ORDER, formatMicroUsd, type Board } from "../../lib/labels.ts";
import { useLiveQuery } from "../../lib/use-live-query.ts";
import { Empty } from "../empty.tsx";
import { LiveBadge } from "../live-badge.tsx";
import { Problem } from "../problem.tsx";
import { TodoCard } from "./todo-card.tsx";
import styles from "./board.module.css";

export function BoardView({ goalId }: { goalId: string }) {
  const { apiUrl } = useApi();
  const live = useLiveQuery(`board:${goalId}`, (client) => client.board.get.query({ goalId }), { goalId });
  const changed = useChangedCards(live.data);

  if (!live.data) {
    if (live.problem) {
      return (
        <>
          <Problem problem={live.problem} apiUrl={apiUrl} what={`the board of ${goalId}`} />
          <p className={styles.back}>
            <Link href="/">← Back to the attention queue</Link>
          </p>
        </>
      );
    }
    return <p className={styles.loading}>Loading the board…</p>;
  }

  const board = live.data;
  const byState = new Map(board.lanes.map((l) => [l.state, l.cards]));
  const total = board.lanes.reduce((n, l) => n + l.cards.length, 0);
  // Superseded todos are history; show the lane only when it has cards.
  const lanes = LANE_ORDER.filter((s) => s !== "superseded" || (byState.get(s)?.length ?? 0) > 0);

  return (
    <div className={styles.page} data-testid="board" data-goal-id={board.goal.id}>
      <header className={styles.head}>
        <div>
          <p className={styles.crumb}>
            <Link href="/">Attention</Link> / Goal
          </p>
          <h1 className={styles.title}>
            {board.goal.title} <span className={`${styles.goalStatus} ${styles[`goal_${board.goal.status}`]}`}>{board.goal.status}</span>
          </h1>
          <p className={styles.objective}>{board.goal.objective}</p>
        </div>
        <div className={styles.headSide}>
          <LiveBadge state={live.stream} />
          {live.problem ? <p className={styles.stale}>Showing the last board loaded: {live.problem.message}</p> : null}
        </div>
      </header>

      {board.quota.length > 0 ? (
        <section className={styles.quota} aria-label="Quota">
          {board.quota.map((q) => (
            <div key={q.policyId} className={`${styles.quotaItem} ${q.exhausted ? styles.exhausted : ""}`}>
              <span>
                <span className={styles.label}>{q.scope} quota</span> <span className={styles.muted}>{q.subjectId}</span>
              </span>
              <span>
                {q.used.steps}
                {q.limits.steps !== null ? ` / ${q.limits.steps}` : ""} steps · {q.used.tokens.toLocaleString("en")}
                {q.limits.tokens !== null ? ` / ${q.limits.tokens.toLocaleString("en")}` : ""} tokens · {formatMicroUsd(q.used.microUsd)}
                {q.limits.microUsd !== null ? ` / ${formatMicroUsd(q.limits.microUsd)}` : ""}
              </span>
              {q.exhausted ? <strong>Exhausted — raise the limit or wait for the window</strong> : null}
            </div>
          ))}
        </section>
      ) : null}

      {total === 0 ? (
        <Empty title="This goal has no todos yet">
          <p>
            The planner turns the objective into todos. Add them through the API (<code>todo.add</code> with goal id{" "}
            <code>{board.goal.id}</code>) or let an agent plan; they appear here as they are written.
          </p>
        </Empty>
      ) : (
        <div className={styles.lanes}>
          {lanes.map((state) => {
            const cards = byState.get(state) ?? [];
            return (
              <section key={state} className={styles.lane} data-lane={state} aria-label={`${LANE_LABEL[state]} todos`}>
                <header className={styles.laneHead}>
                  <h2>
                    {LANE_LABEL[state]} <span className={styles.count}>{cards.length}</span>
                  </h2>
                  <p>{LANE_HINT[state]}</p>
                </header>
                <div className={styles.cards}>
                  {cards.length === 0 ? <p className={styles.laneEmpty}>Nothing here</p> : null}
                  {cards.map((card) => (
                    <TodoCard key={card.id} card={card} changed={changed.has(card.id)} />
                  ))}
                </div>
              </section>
            );
          })}
        </div>
      )}
    </div>
  );
}

/** Cards whose state or owner changed in the last load, highlighted briefly so a live change is noticed. */
function useChangedCards(board: Board | undefined): Set<string> {
  const previous = useRef(new Map<string, string>());
  const [changed, setChanged] = useState<Set<string>>(new Set());
  useEffect(() => {
    if (!board) return;
    const next = new Map<string, string>();
    const moved = new Set<string>();
    for (const lane of board.lanes) {
      for (const c of lane.cards) {
        const sig = `${c.state}|${c.owner?.agentId ?? ""}|${c.openGate?.id ?? ""}`;
        next.set(c.id, sig);
        const before = previous.current.get(c.id);
        if (previous.current.size > 0 && before !== sig) moved.add(c.id);
      }
    }
    previous.current = next;
    setChanged(moved);
    if (moved.size === 0) return;
    const timer = setTimeout(() => setChanged(new Set()), 2500);
    return () => clearTimeout(timer);
  }, [board]);
  return changed;
}
