"use client";
import Link from "next/link";
import { useEffect, useState } from "react";
import { useApi } from "../../lib/api.tsx";
import { formatAgo, LANE_LABEL, whoLabel, type AttentionItem, type GoalSummary, type TodoState } from "../../lib/labels.ts";
import { useLiveQuery } from "../../lib/use-live-query.ts";
import { Empty } from "../empty.tsx";
import { LiveBadge } from "../live-badge.tsx";
import { Problem } from "../problem.tsx";
import styles from "./attention.module.css";

export function AttentionView() {
  const { apiUrl } = useApi();
  const live = useLiveQuery("attention", async (client) => {
    const [attention, goals] = await Promise.all([client.board.attention.query({}), client.board.goals.query({})]);
    return { attention, goals };
  });
  const now = useNow();

  if (!live.data) {
    if (live.problem) return <Problem problem={live.problem} apiUrl={apiUrl} what="the attention queue" />;
    return <p className={styles.loading}>Loading who needs to act…</p>;
  }
  const { attention, goals } = live.data;
  const titles = new Map(goals.map((g) => [g.id, g.title]));

  return (
    <div className={styles.page}>
      <header className={styles.head}>
        <div>
          <h1>Who acts next</h1>
          <p className={styles.sub}>Questions waiting for a person, work waiting for an agent, limits reached.</p>
        </div>
        <LiveBadge state={live.stream} />
      </header>
      {live.problem ? <p className={styles.stale}>Showing the last queue loaded: {live.problem.message}</p> : null}

      <section aria-label="Attention queue" data-testid="attention">
        {attention.length === 0 ? (
          <Empty title="Nobody needs to act right now">
            <p>
              No gate waits for an answer, no lease has expired, nothing is blocked and no quota is exhausted.{" "}
              {goals.length > 0 ? "Open a goal below to watch its board." : "Create a goal to get started."}
            </p>
          </Empty>
        ) : (
          <ol className={styles.items}>
            {attention.map((item) => (
              <AttentionRow key={keyOf(item)} item={item} goalTitle={item.goalId ? titles.get(item.goalId) : undefined} now={now} />
            ))}
          </ol>
        )}
      </section>

      <section aria-label="Goals" className={styles.goals}>
        <h2>Goals</h2>
        {goals.length === 0 ? (
          <Empty title="No goals yet">
            <p>
              A goal is what the agents work towards. Create one through the API (<code>goal.create</code>), then add todos with{" "}
              <code>todo.add</code>; agents claim them with <code>npm run phoneloop -- todo claim --agent-id &lt;id&gt;</code>.
            </p>
          </Empty>
        ) : (
          <ul className={styles.goalList}>
            {goals.map((g) => (
              <GoalRow key={g.id} goal={g} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function AttentionRow({ item, goalTitle, now }: { item: AttentionItem; goalTitle: string | undefined; now: number }) {
  const goal = item.goalId ? (
    <Link href={`/goals/${encodeURIComponent(item.goalId)}`} className={styles.goalLink}>
      {goalTitle ?? item.goalId}
    </Link>
  ) : null;
  switch (item.kind) {
    case "gate_waiting":
      return (
        <li className={`${styles.item} ${styles.gate}`} data-kind={item.kind}>
          <div className={styles.kind}>Question for {whoLabel(item.who)}</div>
          <p className={styles.question}>{item.question}</p>
          {item.options.length > 0 ? (
            <p className={styles.options}>
              {item.options.map((o) => (
                <span key={o} className={styles.option}>
                  {o}
                </span>
              ))}
            </p>
          ) : null}
          <p className={styles.meta}>
            {goal} · open {formatAgo(item.since, now)} · <code>{item.gateId}</code> · answer with{" "}
            <code>npm run phoneloop -- gate resolve {item.gateId} --member-id &lt;you&gt; …</code>
          </p>
        </li>
      );
    case "lease_expired":
      return (
        <li className={styles.item} data-kind={item.kind}>
          <div className={styles.kind}>Lease expired — {whoLabel(item.who)} may reclaim</div>
          <p className={styles.question}>{item.title}</p>
          <p className={styles.meta}>
            {goal} · {item.previousOwner}&apos;s lease ran out {formatAgo(item.since, now)} · reclaim with{" "}
            <code>npm run phoneloop -- todo claim {item.todoId} --agent-id &lt;id&gt;</code>
          </p>
        </li>
      );
    case "todo_blocked":
      return (
        <li className={styles.item} data-kind={item.kind}>
          <div className={styles.kind}>Blocked — for {whoLabel(item.who)}</div>
          <p className={styles.question}>{item.title}</p>
          <p className={styles.meta}>
            {goal}
            {item.reason ? ` · ${item.reason}` : ""} · since {formatAgo(item.since, now)}
          </p>
        </li>
      );
    case "quota_exhausted":
      return (
        <li className={`${styles.item} ${styles.quota}`} data-kind={item.kind}>
          <div className={styles.kind}>Quota exhausted — for {whoLabel(item.who)}</div>
          <p className={styles.question}>{item.message}</p>
          <p className={styles.meta}>
            {goal ?? `${item.scope} ${item.subjectId}`}
          </p>
        </li>
      );
  }
}

function GoalRow({ goal }: { goal: GoalSummary }) {
  const counts = Object.entries(goal.todos) as [TodoState, number][];
  return (
    <li className={styles.goalRow}>
      <Link href={`/goals/${encodeURIComponent(goal.id)}`} className={styles.goalTitle}>
        {goal.title}
      </Link>
      <span className={styles.goalStatus}>{goal.status}</span>
      <span className={styles.goalCounts}>
        {counts.length === 0 ? "no todos yet" : counts.map(([state, n]) => `${n} ${LANE_LABEL[state].toLowerCase()}`).join(" · ")}
      </span>
    </li>
  );
}

function keyOf(item: AttentionItem): string {
  switch (item.kind) {
    case "gate_waiting":
      return `gate:${item.gateId}`;
    case "lease_expired":
    case "todo_blocked":
      return `${item.kind}:${item.todoId}`;
    case "quota_exhausted":
      return `quota:${item.policyId}`;
  }
}

/** The current time, refreshed every 30 s, for "5 min ago". */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
