"use client";
import { useQuery } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { LANE_ORDER, formatMicroUsd, type Board } from "../../lib/labels.ts";
import { useStreamState } from "../../lib/live-cache.tsx";
import { useOperators } from "../../lib/operators.ts";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { Empty } from "../empty.tsx";
import { LiveBadge } from "../live-badge.tsx";
import { Problem } from "../problem.tsx";
import { ReasonDialog } from "../ui/reason-dialog.tsx";
import ui from "../ui/ui.module.css";
import { Lane } from "./lane.tsx";
import { WipBar } from "./wip-limits.tsx";
import styles from "./board.module.css";

export function BoardView({ goalId }: { goalId: string }) {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const query = useQuery(trpc.board.get.queryOptions({ goalId }));
  const stream = useStreamState();
  const changed = useChangedCards(query.data);
  const problem = query.error ? describeProblem(query.error, apiUrl) : undefined;

  if (!query.data) {
    if (problem) {
      return (
        <>
          <Problem problem={problem} apiUrl={apiUrl} what={`the board of ${goalId}`} />
          <p className={styles.back}>
            <Link href="/">← Back to the attention queue</Link>
          </p>
        </>
      );
    }
    return <p className={styles.loading}>Loading the board…</p>;
  }

  const board = query.data;
  const byState = new Map(board.lanes.map((l) => [l.state, l.cards]));
  const wipBy = new Map(board.lanes.map((l) => [l.state, l.wip]));
  const total = board.lanes.reduce((n, l) => n + l.cards.length, 0);
  // Superseded todos are history; show the lane only when it has cards.
  const lanes = LANE_ORDER.filter((s) => s !== "superseded" || (byState.get(s)?.length ?? 0) > 0);
  const stepLimit = board.quota.find((q) => q.scope === "goal" && q.limits.steps !== null)?.limits.steps ?? null;

  return (
    <div className={styles.page} data-testid="board" data-goal-id={board.goal.id}>
      <header className={styles.head}>
        <div>
          <p className={styles.crumb}>
            <Link href="/">Attention</Link> / <Link href="/board">All goals</Link> / Goal
          </p>
          <h1 className={styles.title}>
            {board.goal.title} <span className={`${styles.goalStatus} ${styles[`goal_${board.goal.status}`]}`}>{board.goal.status}</span>
          </h1>
          <p className={styles.objective}>{board.goal.objective}</p>
        </div>
        <div className={styles.headSide}>
          <LiveBadge state={stream} />
          {problem ? <p className={styles.stale}>Showing the last board loaded: {problem.message}</p> : null}
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
              {q.limits.steps !== null ? <meter className={styles.quotaBar} min={0} max={q.limits.steps} value={Math.min(q.used.steps, q.limits.steps)} aria-label={`${q.scope} steps used`} /> : null}
              {q.exhausted ? <strong>Exhausted — raise the limit or wait for the window</strong> : null}
            </div>
          ))}
        </section>
      ) : null}

      <WipBar board={board} />

      {total === 0 ? (
        <Empty title="This goal has no todos yet">
          <p>The planner turns the objective into todos as an agent starts on the goal; you can also add the first one yourself.</p>
          <AddTodo goalId={board.goal.id} />
        </Empty>
      ) : (
        <div className={styles.lanes}>
          {lanes.map((state) => (
            <Lane
              key={state}
              state={state}
              cards={(byState.get(state) ?? []).map((card) => ({ card, goalId: board.goal.id }))}
              changed={changed}
              stepLimit={stepLimit}
              wip={wipBy.get(state) ?? null}
              tools={state === "pending" ? <AddTodo goalId={board.goal.id} /> : undefined}
            />
          ))}
        </div>
      )}
    </div>
  );
}

export function AddTodo({ goalId }: { goalId: string }) {
  const session = useSession();
  const ops = useOperators();
  const [open, setOpen] = useState(false);
  if (!session.may("run")) return null;
  return (
    <>
      <button type="button" className={ui.button} onClick={() => setOpen(true)}>
        <Plus size={14} aria-hidden /> Add a todo
      </button>
      <ReasonDialog
        open={open}
        onOpenChange={setOpen}
        title="Add a todo"
        description="It goes to the end of the plan, in Pending, where the next free agent claims it."
        label="What to do"
        confirm="Add"
        onConfirm={(title) => ops.add.mutateAsync({ goalId, todos: [{ title }] }).then(() => toast.success(`Added "${title}"`))}
      />
    </>
  );
}

/** Cards whose state, owner or gate changed in the last load, highlighted briefly so a live change is noticed. */
export function useChangedCards(board: Pick<Board, "lanes"> | undefined): Set<string> {
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
    // Nothing moved and nothing shown as moved: no new state, so no render for nothing.
    setChanged((shown) => (moved.size === 0 && shown.size === 0 ? shown : moved));
    if (moved.size === 0) return;
    const timer = setTimeout(() => setChanged(new Set()), 2500);
    return () => clearTimeout(timer);
  }, [board]);
  return changed;
}
