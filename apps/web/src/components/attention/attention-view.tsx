"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { CheckCheck, CircleStop, Hand, LayoutGrid, RotateCcw, SearchCheck } from "lucide-react";
import Link from "next/link";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { formatAgo, LANE_LABEL, TAKEOVER_REASON_WORDS, whoLabel, type AttentionItem, type GoalSummary, type TodoState } from "../../lib/labels.ts";
import { useStreamState } from "../../lib/live-cache.tsx";
import { replanKey, useOperators } from "../../lib/operators.ts";
import { gateWaitOf, plainQuestion } from "../../lib/plain-question.ts";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { ApprovalsLine, BatchDecision } from "../gate/gate-approvals.tsx";
import { GateDecision } from "../gate/gate-decision.tsx";
import { ReasonDialog } from "../ui/reason-dialog.tsx";
import ui from "../ui/ui.module.css";
import { Empty } from "../empty.tsx";
import { LiveBadge } from "../live-badge.tsx";
import { Problem } from "../problem.tsx";
import styles from "./attention.module.css";

export function AttentionView() {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  // Both lists come in pages (100 each); "Show more" reads the next one.
  const attentionQuery = useInfiniteQuery(trpc.board.attention.infiniteQueryOptions({}, { getNextPageParam: (page) => page.nextCursor }));
  const goalsQuery = useInfiniteQuery(trpc.board.goals.infiniteQueryOptions({}, { getNextPageParam: (page) => page.nextCursor }));
  const stream = useStreamState();
  const now = useNow();
  const error = attentionQuery.error ?? goalsQuery.error;
  const problem = error ? describeProblem(error, apiUrl) : undefined;

  if (!attentionQuery.data || !goalsQuery.data) {
    if (problem) return <Problem problem={problem} apiUrl={apiUrl} what="the attention queue" />;
    return <p className={styles.loading}>Loading who needs to act…</p>;
  }
  const attention = attentionQuery.data.pages.flatMap((p) => p.items);
  const goals = goalsQuery.data.pages.flatMap((p) => p.items);
  const titles = new Map(goals.map((g) => [g.id, g.title]));

  return (
    <div className={styles.page}>
      <header className={styles.head}>
        <div>
          <h1>Who acts next</h1>
          <p className={styles.sub}>Questions waiting for a person, work waiting for an agent, limits reached.</p>
        </div>
        <LiveBadge state={stream} />
      </header>
      {problem ? <p className={styles.stale}>Showing the last queue loaded: {problem.message}</p> : null}

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
        {attentionQuery.hasNextPage ? (
          <button type="button" className={ui.button} disabled={attentionQuery.isFetchingNextPage} onClick={() => void attentionQuery.fetchNextPage()}>
            Show more
          </button>
        ) : null}
      </section>

      <section aria-label="Goals" className={styles.goals}>
        <h2>Goals</h2>
        {goals.length === 0 ? (
          <Empty title="No goals yet">
            <p>
              A goal is what the agents work towards: an objective, its bounds and how to tell it is done. Goals appear here
              as soon as they are created, each with its board.
            </p>
          </Empty>
        ) : (
          <ul className={styles.goalList}>
            {goals.map((g) => (
              <GoalRow key={g.id} goal={g} />
            ))}
          </ul>
        )}
        {goalsQuery.hasNextPage ? (
          <button type="button" className={ui.button} disabled={goalsQuery.isFetchingNextPage} onClick={() => void goalsQuery.fetchNextPage()}>
            Show older goals
          </button>
        ) : null}
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
  const board = item.goalId ? (
    <Link href={`/goals/${encodeURIComponent(item.goalId)}`} className={ui.button}>
      <LayoutGrid size={14} aria-hidden /> Open the board
    </Link>
  ) : null;
  switch (item.kind) {
    case "gate_waiting": {
      const plain = plainQuestion(item.question);
      if (item.gateKind === "takeover") {
        const t = item.takeover;
        return (
          <li className={`${styles.item} ${styles.gate}`} data-kind="takeover" data-gate-id={item.gateId}>
            <div className={styles.kind}>The agent asks {whoLabel(item.who)} to take over the phone</div>
            <h2 className={styles.question}>The agent asks you to take over: {plain.question}</h2>
            <p className={styles.meta}>
              {t?.reason ? <>For {TAKEOVER_REASON_WORDS[t.reason]} · </> : null}
              {goal} · asked {formatAgo(item.since, now)}
              {t?.takenBy ? <> · {t.takenBy.name} has the phone{t.takenAt ? ` since ${formatAgo(t.takenAt, now)}` : ""}</> : null}
            </p>
            <div className={styles.actions}>
              {/* The run's live view: its mirror becomes the phone in the tab that holds it. */}
              <Link href={t?.runId ? `/runs/${encodeURIComponent(t.runId)}` : `/gates/${encodeURIComponent(item.gateId)}`} className={`${ui.button} ${ui.primary}`}>
                <Hand size={14} aria-hidden /> Take over
              </Link>
            </div>
          </li>
        );
      }
      return (
        <li className={`${styles.item} ${styles.gate}`} data-kind={item.kind} data-gate-id={item.gateId}>
          <div className={styles.kind}>
            {plain.asked ? "The agent's question" : "Question"} for {whoLabel(item.who)}
          </div>
          <h2 className={styles.question}>{plain.question}</h2>
          {plain.detail ? (
            <details className={styles.detail}>
              <summary>Why it asks</summary>
              <p>{plain.detail}</p>
            </details>
          ) : null}
          <p className={styles.meta}>
            {goal} · open {formatAgo(item.since, now)}
          </p>
          <ApprovalsLine approvals={item.approvals} kind={item.gateKind} />
          <div className={styles.actions}>
            <Link href={`/gates/${encodeURIComponent(item.gateId)}`} className={ui.button}>
              <SearchCheck size={14} aria-hidden /> Review with the screenshot
            </Link>
            <GateDecision gateId={item.gateId} question={plain.question} options={item.options} kind={item.gateKind} answerRoles={item.who.kind === "members" ? item.who.roles : []} compact />
          </div>
          <BatchDecision approvals={item.approvals} />
        </li>
      );
    }
    case "lease_expired":
      return (
        <li className={styles.item} data-kind={item.kind}>
          <div className={styles.kind}>Lease expired — {whoLabel(item.who)} may reclaim</div>
          <p className={styles.question}>{item.title}</p>
          <p className={styles.meta}>
            {goal} · {item.previousOwner}&apos;s lease ran out {formatAgo(item.since, now)}; the next free agent with a phone
            takes it over from its last checkpoint.
          </p>
          <div className={styles.actions}>{board}</div>
        </li>
      );
    case "todo_blocked":
      return (
        <li className={styles.item} data-kind={item.kind} data-todo-id={item.todoId}>
          <div className={styles.kind}>Blocked — for {whoLabel(item.who)}</div>
          <p className={styles.question}>{item.title}</p>
          <p className={styles.meta}>
            {goal}
            {item.reason ? ` · ${gateWaitOf(item.reason) ? "waits for its gate's answer" : item.reason}` : ""} · since {formatAgo(item.since, now)}
          </p>
          <div className={styles.actions}>
            <BlockedActions goalId={item.goalId} todoId={item.todoId} title={item.title} />
            {board}
          </div>
        </li>
      );
    case "run_interrupted":
      return (
        <li className={styles.item} data-kind={item.kind}>
          <div className={styles.kind}>Run interrupted — {whoLabel(item.who)} resumes it</div>
          <p className={styles.question}>{item.summary ?? `Run ${item.runId} stopped when its worker went away.`}</p>
          <p className={styles.meta}>
            {goal} · since {formatAgo(item.since, now)} · resume on a computer with the phone: <code>{item.action.command}</code>
          </p>
          <div className={styles.actions}>{board}</div>
        </li>
      );
    case "goal_done":
      return (
        <li className={styles.item} data-kind={item.kind} data-goal-id={item.goalId}>
          <div className={styles.kind}>Every todo is done — {whoLabel(item.who)} may complete the goal</div>
          <p className={styles.question}>{item.title}</p>
          <p className={styles.meta}>since {formatAgo(item.since, now)}</p>
          <div className={styles.actions}>
            <CompleteGoal goalId={item.action.goalId} title={item.title} />
            {board}
          </div>
        </li>
      );
    case "quota_exhausted":
      return (
        <li className={`${styles.item} ${styles.quota}`} data-kind={item.kind}>
          <div className={styles.kind}>Quota exhausted — for {whoLabel(item.who)}</div>
          <p className={styles.question}>{item.message}</p>
          <p className={styles.meta}>{goal ?? `${item.scope} ${item.subjectId}`}</p>
          <div className={styles.actions}>{board}</div>
        </li>
      );
  }
}

function CompleteGoal({ goalId, title }: { goalId: string; title: string }) {
  const session = useSession();
  const ops = useOperators();
  if (!session.may("run")) return null;
  return (
    <button
      type="button"
      className={`${ui.button} ${ui.primary}`}
      disabled={ops.completeGoal.isPending}
      onClick={() => ops.completeGoal.mutate({ goalId }, { onSuccess: () => toast.success(`"${title}" is completed`) })}
    >
      <CheckCheck size={14} aria-hidden /> Complete the goal
    </button>
  );
}

function BlockedActions({ goalId, todoId, title }: { goalId: string; todoId: string; title: string }) {
  const session = useSession();
  const ops = useOperators();
  const [cancelling, setCancelling] = useState(false);
  if (!session.may("run")) return null;
  return (
    <>
      <button
        type="button"
        className={`${ui.button} ${ui.primary}`}
        disabled={ops.reopen.isPending}
        onClick={() => ops.reopen.mutate({ todoId, reason: "retried from the attention queue" }, { onSuccess: () => toast.success(`"${title}" is back in Pending`) })}
      >
        <RotateCcw size={14} aria-hidden /> Retry
      </button>
      <button type="button" className={`${ui.button} ${ui.danger}`} onClick={() => setCancelling(true)}>
        <CircleStop size={14} aria-hidden /> Cancel…
      </button>
      <ReasonDialog
        open={cancelling}
        onOpenChange={setCancelling}
        title={`Cancel "${title}"`}
        description="The todo is superseded: it stays in the history with your reason, and no agent works on it again."
        label="Why it is cancelled"
        confirm="Cancel the todo"
        danger
        onConfirm={(reason) =>
          ops.replan.mutateAsync({ goalId, idempotencyKey: replanKey("cancel"), reason, ops: [{ op: "supersede", todoId, reason }] }).then(() => toast.success(`"${title}" is cancelled`))
        }
      />
    </>
  );
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
    case "run_interrupted":
      return `run:${item.runId}`;
    case "goal_done":
      return `goal_done:${item.goalId}`;
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
