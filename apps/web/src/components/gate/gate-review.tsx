"use client";
// One gate, for the person who answers it: the question and options, the screen with the pending action drawn on
// it, the rule that fired, the model's own words (labelled as such), and approve / deny / answer with a rationale.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { blobUrl, pendingGateOf, readEvidenceData } from "@phoneloop/api/contract";
import Link from "next/link";
import { useEffect } from "react";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { describePending, type ScreenView } from "../../lib/action-words.ts";
import { useStreamState } from "../../lib/live-cache.tsx";
import { TAKEOVER_REASON_WORDS } from "../../lib/labels.ts";
import { plainQuestion } from "../../lib/plain-question.ts";
import { useTRPC } from "../../lib/trpc.ts";
import { LiveBadge } from "../live-badge.tsx";
import { Problem } from "../problem.tsx";
import ui from "../ui/ui.module.css";
import { ActionOverlay } from "./action-overlay.tsx";
import { ApprovalsLine, BatchDecision } from "./gate-approvals.tsx";
import { TakeoverPanel } from "../runner/takeover-panel.tsx";
import { GateDecision } from "./gate-decision.tsx";
import styles from "./gate.module.css";

const TIER_LABEL = { confirm: "Needs confirmation", high_risk: "High risk", question: "The agent asks" } as const;

export function GateReview({ gateId }: { gateId: string }) {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const stream = useStreamState();
  const gate = useQuery(trpc.gate.get.queryOptions({ gateId }));
  const runId = gate.data?.runId ?? null;
  const run = useQuery({ ...trpc.run.get.queryOptions({ runId: runId ?? "" }), enabled: runId !== null });
  // The run's observations come in pages, oldest first: read on until the gate's screenshot is among them.
  const evidence = useInfiniteQuery({
    ...trpc.evidence.list.infiniteQueryOptions(
      { goalId: gate.data?.goalId ?? "", ...(runId ? { runId } : {}), kind: "observation" },
      { getNextPageParam: (page) => page.nextCursor },
    ),
    enabled: gate.data !== undefined && gate.data.evidenceIds.length > 0,
  });
  const observations = evidence.data?.pages.flatMap((p) => p.items);
  const found = observations?.some((e) => gate.data?.evidenceIds.includes(e.id) && e.blobSha256) ?? false;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = evidence;
  useEffect(() => {
    if (!found && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [found, hasNextPage, isFetchingNextPage, fetchNextPage]);

  if (!gate.data) {
    if (gate.error) return <Problem problem={describeProblem(gate.error, apiUrl)} apiUrl={apiUrl} what={`gate ${gateId}`} />;
    return <p className={styles.crumb}>Loading the gate…</p>;
  }
  const g = gate.data;
  const pending = run.data ? pendingGateOf(run.data.checkpoint, g.id) : null;
  const shot = observations?.find((e) => g.evidenceIds.includes(e.id) && e.blobSha256);
  const observation = shot ? screenOf(readEvidenceData("observation", shot.data)) : null;
  const action = pending?.action ?? null;
  const plain = g.status === "open" ? plainQuestion(g.question) : null;
  const modelWords = Boolean(action?.thought || action?.intent);

  return (
    <div className={styles.page} data-testid="gate-review" data-gate-status={g.status}>
      <div>
        {shot?.blobSha256 && observation ? (
          <ActionOverlay src={blobUrl(apiUrl, shot.blobSha256)} observation={observation} action={action} />
        ) : (
          <p className={styles.noShot}>
            {g.evidenceIds.length === 0 ? "This gate carries no screenshot: it was opened without one." : evidence.isLoading || evidence.hasNextPage ? "Loading the screenshot…" : "The screenshot of this gate was not stored (the agent ran with screenshots off)."}
          </p>
        )}
      </div>
      <div className={styles.side}>
        <p className={styles.crumb}>
          <Link href="/">Attention</Link> / <Link href={`/goals/${encodeURIComponent(g.goalId)}`}>Board</Link> / Gate <code>{g.id}</code>{" "}
          <LiveBadge state={stream} />
        </p>
        {g.status === "open" && plain ? (
          <>
            {g.kind === "takeover" ? (
              <p className={styles.crumb}>
                {g.takeover?.reason ? `The agent asks you to take over the phone, for ${TAKEOVER_REASON_WORDS[g.takeover.reason]}` : "A person took over the phone"}
                {g.takeover?.takenBy ? ` · ${g.takeover.takenBy.name} has it` : ""}
              </p>
            ) : plain.asked ? <p className={styles.crumb}>The agent asks</p> : null}
            <h1 className={styles.question}>{plain.question}</h1>
            {g.options.length > 0 ? <p className={styles.crumb}>Options: {g.options.join(" · ")}</p> : null}
          </>
        ) : (
          <h1 className={styles.question}>This gate is {g.status}</h1>
        )}

        {pending ? (
          <section className={styles.block} aria-labelledby="pending-action">
            <h2 id="pending-action">What the agent will do</h2>
            <p>
              <span className={`${styles.tier} ${styles[`tier_${pending.tier}`] ?? ""}`}>{TIER_LABEL[pending.tier]}</span> {describePending(pending.action, observation?.elements)}
            </p>
          </section>
        ) : null}

        {/* For a person first: the question above; why it is asked (the agent's detail, the rule and the policy
            version, the model's words) folded here. */}
        {plain?.detail || pending?.policy || modelWords ? (
          <details className={styles.why}>
            <summary>Why the agent asks: {[plain?.detail || pending?.policy ? "the rule and the policy version" : null, modelWords ? "the model's words" : null].filter(Boolean).join(", ")}</summary>
            {plain?.detail ? <p className={styles.detail}>{plain.detail}</p> : null}
            {pending?.policy ? (
              <section className={styles.block} aria-labelledby="rule" data-field="rule">
                <h2 id="rule">The rule that fired</h2>
                <p>
                  <code>{pending.policy.ruleId}</code> ({pending.kind}), policy {pending.policy.policyVersion}
                </p>
                {pending.policy.evidence.length > 0 ? (
                  <ul>
                    {pending.policy.evidence.map((e) => (
                      <li key={e}>{e}</li>
                    ))}
                  </ul>
                ) : null}
              </section>
            ) : null}
            {action && modelWords ? (
              <section className={styles.block} aria-labelledby="model-words" data-field="model-words">
                <h2 id="model-words">The model&apos;s words (not checked by anyone)</h2>
                {action.intent ? <blockquote className={styles.modelWords}>Intent: {action.intent}</blockquote> : null}
                {action.thought ? <blockquote className={styles.modelWords}>{action.thought}</blockquote> : null}
              </section>
            ) : null}
          </details>
        ) : null}

        {g.status === "open" ? (
          g.kind === "takeover" ? (
            g.runId ? (
              <TakeoverPanel runId={g.runId} />
            ) : (
              <p className={styles.block}>This takeover belongs to no run any more; nothing waits on it.</p>
            )
          ) : (
            <section className={styles.block} aria-label="Your decision">
              <ApprovalsLine approvals={g.approvals} kind={g.kind} />
              <GateDecision gateId={g.id} question={plain?.question ?? g.question} options={g.options} kind={g.kind} answerRoles={g.answerRoles} />
              <BatchDecision approvals={g.approvals} />
            </section>
          )
        ) : g.status === "expired" ? (
          <section className={styles.block}>
            <p>Nobody answered before it expired; the agent that waited on it was told so.</p>
          </section>
        ) : (
          <section className={`${styles.block} ${styles.decided}`} data-field="decision">
            <h2>Decision</h2>
            <p>
              <strong>{g.decision}</strong>
              {g.answer ? `: ${g.answer}` : ""} — by {g.resolvedBy}
              {g.resolvedAt ? ` at ${g.resolvedAt.toLocaleString("en")}` : ""}
            </p>
            {g.rationale ? <p>{g.rationale}</p> : null}
            {g.approvals.decisions.length > 1 ? (
              <ul data-field="decisions">
                {g.approvals.decisions.map((d) => (
                  <li key={d.userId}>
                    {d.decision} by {d.userId} at {new Date(d.at).toLocaleString("en")}: {d.rationale}
                  </li>
                ))}
              </ul>
            ) : null}
          </section>
        )}
        {g.runId ? (
          <p>
            <Link href={`/runs/${encodeURIComponent(g.runId)}`} className={ui.button}>
              Open the run&apos;s replay
            </Link>
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** The observation's screen for the overlay: its size and elements (null when it recorded no size). */
function screenOf(o: ReturnType<typeof readEvidenceData<"observation">>): ScreenView | null {
  return o.screen ? { screen: o.screen, elements: o.elements ?? [] } : null;
}
