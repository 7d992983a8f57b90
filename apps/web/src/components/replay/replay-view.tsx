"use client";
// One run's replay: the timeline of planner turns and executor steps, the selected step's screenshot with its
// action drawn on it, the model's words (labelled as such), the parsed action, anomalies and reminders, gate
// decisions, timings, tokens and cost; charts per step and the summary report. ←/→ step, space plays at 1×/2×/4×.
// The same view serves a member's run page (live while the run goes), a share link and an imported file.
import { ChevronLeft, ChevronRight, Pause, Play } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { describePending } from "../../lib/action-words.ts";
import { ActionOverlay } from "../gate/action-overlay.tsx";
import { ReplayCharts } from "./replay-charts.tsx";
import { actionOf, personOf, formatMicroUsd, formatMs, formatWhen, GRADE_MEANING, remindsModel, type ReplayNote, type ReplaySource, type ReplayStep } from "./replay-data.ts";
import styles from "./replay.module.css";
import { StatusPill } from "../ui/status-pill.tsx";
import uiStyles from "../ui/ui.module.css";

const SPEEDS = [1, 2, 4] as const;
/** How long a step stays on screen when playing at 1×. */
const STEP_MS = 1600;

type TimelineItem = { kind: "step"; step: ReplayStep; position: number } | { kind: "note"; note: ReplayNote };

export interface ReplayViewProps {
  source: ReplaySource;
  /** Shown in the header: what this person may do with the run (share, export, grade). */
  actions?: ReactNode;
  /** Below the summary: the grade form for a reviewer. */
  review?: ReactNode;
  /** A badge saying the page is live (member pages while the run goes). */
  live?: ReactNode;
  /** Where the replay came from, in words ("Shared read-only", "Imported from run-….zip"). */
  origin?: string;
}

export function ReplayView({ source, actions, review, live, origin }: ReplayViewProps) {
  const { header, steps } = source;
  const [current, setCurrent] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const running = header.run.status === "running";
  const last = steps.length - 1;
  const followRef = useRef(true);

  // Live: a person at the newest step keeps following the run as steps arrive.
  useEffect(() => {
    if (running && followRef.current && last >= 0) setCurrent(last);
  }, [running, last]);

  const go = useCallback(
    (to: number) => {
      const next = Math.max(0, Math.min(last, to));
      followRef.current = next === last;
      setCurrent(next);
    },
    [last],
  );

  useEffect(() => {
    if (!playing) return;
    if (current >= last) {
      setPlaying(false);
      return;
    }
    const timer = setTimeout(() => go(current + 1), STEP_MS / speed);
    return () => clearTimeout(timer);
  }, [playing, current, last, speed, go]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.closest("[role=dialog],[role=radiogroup]"))) return;
      if (e.key === "ArrowRight") {
        e.preventDefault();
        setPlaying(false);
        go(current + 1);
      } else if (e.key === "ArrowLeft") {
        e.preventDefault();
        setPlaying(false);
        go(current - 1);
      } else if (e.key === " " && !(t && /^(BUTTON|A|SUMMARY)$/.test(t.tagName) && !t.dataset.playToggle)) {
        e.preventDefault();
        setPlaying((p) => (current >= last ? false : !p));
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [current, last, go]);

  const step = steps[current];
  // The next screenshot loads while this one is shown, so playing never waits on the network.
  const nextSha = steps[current + 1]?.screen?.sha256;
  useEffect(() => {
    if (!nextSha) return;
    const img = new Image();
    img.src = source.screenUrl(nextSha);
  }, [nextSha, source]);

  const timeline = useMemo((): TimelineItem[] => {
    const items: TimelineItem[] = [...steps.map((step, position) => ({ kind: "step" as const, step, position })), ...header.timeline.map((note) => ({ kind: "note" as const, note }))];
    const at = (x: TimelineItem) => new Date(x.kind === "step" ? x.step.at : x.note.at).getTime();
    return items.sort((a, b) => at(a) - at(b));
  }, [steps, header.timeline]);

  const tokens = header.totals.inputTokens + header.totals.outputTokens;
  const g = header.run.grade as keyof typeof GRADE_MEANING | null;

  return (
    <div className={uiStyles.page} data-testid="replay" data-run-status={header.run.status}>
      <header className={uiStyles.pageHead}>
        <div>
          {origin ? <p className={styles.origin}>{origin}</p> : null}
          <h1>{header.goal.title}</h1>
          <p className={uiStyles.meta}>
            <StatusPill status={header.run.status} />
            {header.run.endReason ? <> ({header.run.endReason.replace(/_/g, " ")})</> : null} · by {header.agent.name} ({header.agent.kind}) · started{" "}
            {formatWhen(header.run.startedAt)}
            {header.run.endedAt ? <> · ended {formatWhen(header.run.endedAt)}</> : null} {live}
          </p>
          <p className={uiStyles.meta}>
            {header.stepCount} steps · {header.totals.modelCalls} model calls
            {header.modelCallsSaved ? <span data-testid="model-calls-saved"> ({header.modelCallsSaved} saved: the runtime waited again on an unchanged screen)</span> : null} ·{" "}
            {tokens.toLocaleString("en")} tokens · {formatMicroUsd(header.totals.microUsd)}
            {g ? (
              <>
                {" "}· <span className={styles.grade} data-testid="run-grade">Grade {g}</span> ({GRADE_MEANING[g]})
              </>
            ) : null}
          </p>
        </div>
        {actions ? <div className={styles.headActions}>{actions}</div> : null}
      </header>

      {steps.length === 0 ? (
        <p className={styles.empty}>{source.loading ? "Loading the steps…" : running ? "No step yet: the first appears here as soon as the agent takes it." : "This run took no executor step."}</p>
      ) : (
        <>
          <div className={styles.player} role="toolbar" aria-label="Replay controls">
            <button type="button" className={styles.control} onClick={() => go(current - 1)} disabled={current === 0} aria-label="Previous step (←)">
              <ChevronLeft size={16} aria-hidden />
            </button>
            <button type="button" className={styles.control} data-play-toggle="1" onClick={() => setPlaying((p) => !p)} disabled={current >= last && !playing} aria-label={playing ? "Pause (space)" : "Play (space)"} aria-pressed={playing}>
              {playing ? <Pause size={16} aria-hidden /> : <Play size={16} aria-hidden />}
            </button>
            <button type="button" className={styles.control} onClick={() => go(current + 1)} disabled={current >= last} aria-label="Next step (→)">
              <ChevronRight size={16} aria-hidden />
            </button>
            <span className={styles.speeds} role="group" aria-label="Speed">
              {SPEEDS.map((s) => (
                <button key={s} type="button" className={styles.speed} aria-pressed={speed === s} onClick={() => setSpeed(s)}>
                  {s}×
                </button>
              ))}
            </span>
            <span className={styles.position} aria-live="polite" data-testid="replay-position">
              Step {step!.index + 1} of {header.stepCount}
              {source.loading ? " (loading more…)" : ""}
            </span>
            <span className={styles.keys}>← → steps · space plays</span>
          </div>

          <div className={styles.body}>
            <nav className={styles.timeline} aria-label="Timeline">
              <ol>
                {timeline.map((item) =>
                  item.kind === "step" ? (
                    <li key={item.step.id}>
                      <button
                        type="button"
                        className={`${styles.tlStep} ${personOf(item.step) ? styles.tlPerson : ""}`}
                        aria-current={item.position === current ? "step" : undefined}
                        onClick={() => go(item.position)}
                        data-step={item.step.index}
                        data-actor={item.step.actor.kind}
                      >
                        <span className={styles.tlIndex}>{item.step.index + 1}</span>
                        <span className={styles.tlText}>{describeStep(item.step)}</span>
                        {personOf(item.step) ? <span className={styles.tlActor}>{personOf(item.step)!.name}</span> : null}
                        {item.step.anomalies.length ? <span className={styles.tlFlag} title="anomaly">!</span> : null}
                        {item.step.gateDecisions.length ? <span className={styles.tlGate} title="gate decision">gate</span> : null}
                      </button>
                    </li>
                  ) : (
                    <li key={item.note.id} className={styles.tlNote}>
                      <span className={styles.tlKind}>{noteLabel(item.note.kind)}</span> {item.note.summary}
                    </li>
                  ),
                )}
              </ol>
            </nav>
            <StepScreen step={step!} url={source.screenUrl} />
            <StepDetail step={step!} />
          </div>
        </>
      )}

      <ReplayCharts steps={steps} current={current} onSelect={go} />
      <Report report={header.report} summary={header.run.summary} />
      <section className={styles.section} aria-labelledby="grade-title">
        <h2 id="grade-title">Grade</h2>
        {g ? (
          <p data-testid="grade-shown">
            <strong>{g}</strong> — {GRADE_MEANING[g]}
            {header.run.gradeNote ? <>: “{header.run.gradeNote}”</> : null}
            {header.run.gradedBy ? <> — graded by {header.run.gradedBy.name}{header.run.gradedAt ? `, ${formatWhen(header.run.gradedAt)}` : ""}</> : null}
          </p>
        ) : (
          <p className={styles.muted}>Not graded yet.</p>
        )}
        {review}
      </section>
    </div>
  );
}

/** A step taken without asking the model, in words (one per reason the core records). */
const MODEL_SKIPPED_WORDS: Record<NonNullable<ReplayStep["modelSkipped"]>, string> = {
  unchanged_after_wait: "Waited again — screen unchanged, model not asked",
  skill_resumed: "The skill went on after the approved step — model not asked",
  skill_step: "The skill's step, taken after a person's approval — model not asked",
};

function describeStep(step: ReplayStep): string {
  if (step.modelSkipped) return MODEL_SKIPPED_WORDS[step.modelSkipped];
  const action = actionOf(step);
  if (!action) return typeof step.action === "string" ? step.action : "(no action)";
  if (action.type === "status") return `Report: ${action.status ?? "done"}`;
  return describePending(action, step.screen?.elements ?? []);
}

function noteLabel(kind: string): string {
  return ({ model_call: "model", summary: "summary", handoff: "handoff", gate_decision: "gate", validation: "planner", anomaly: "anomaly", observation: "screen", action: "action", checkpoint: "checkpoint" } as Record<string, string>)[kind] ?? kind;
}

function StepScreen({ step, url }: { step: ReplayStep; url: (sha: string) => string }) {
  const screen = step.screen;
  if (!screen) return <p className={styles.noShot}>No screenshot was stored for this step (the agent ran with screenshots off).</p>;
  const action = actionOf(step);
  const point = step.point && action && action.x === undefined ? { ...action, ...step.point } : action;
  return (
    <div className={styles.screen} data-testid="replay-screenshot" data-sha={screen.sha256}>
      <ActionOverlay
        src={url(screen.sha256)}
        observation={{ screen: { width: screen.width ?? 1080, height: screen.height ?? 2400 }, elements: screen.elements }}
        action={point}
      />
    </div>
  );
}

function StepDetail({ step }: { step: ReplayStep }) {
  const action = actionOf(step);
  const person = personOf(step);
  const thought = action?.thought;
  const policy = step.policy;
  return (
    <div className={styles.detail} data-testid="step-detail">
      <h2>
        Step {step.index + 1}
        {step.app ? <span className={styles.muted}> · {step.app}</span> : null}
      </h2>
      {person ? (
        <p className={styles.byPerson} data-testid="step-person">
          Done by {person.name}, who took over the phone
        </p>
      ) : null}
      <section aria-label="Action">
        <h3>Action</h3>
        <p>
          {describeStep(step)}
          {step.outcome ? <span className={styles.muted}> → {step.outcome}</span> : null}
        </p>
        {step.modelSkipped ? (
          <p className={styles.small} data-testid="model-skipped">
            The model was not asked for this step: it had chosen to wait, and the screen had not changed since, so the runtime waited again. No tokens were spent.
          </p>
        ) : null}
        {policy?.tier ? (
          <p className={styles.small}>
            Policy: {policy.tier.replace("_", " ")}
            {policy.ruleId ? <> · rule <code>{policy.ruleId}</code></> : null}
            {policy.policyVersion ? <> · {policy.policyVersion}</> : null}
          </p>
        ) : null}
        <details>
          <summary>Parsed action</summary>
          <pre>{JSON.stringify(step.action, null, 2)}</pre>
        </details>
      </section>
      {thought || step.replies.length || step.modelCalls.some((c) => c.reply) ? (
        <section aria-label="The model's words" className={styles.modelWords}>
          <h3>The model’s words</h3>
          <p className={styles.small}>Written by the model; shown as it wrote them, not checked.</p>
          {thought ? <blockquote data-testid="model-thought">{thought}</blockquote> : null}
          {step.replies.length || step.modelCalls.some((c) => c.reply) ? (
            <details>
              <summary>Raw model output</summary>
              {[...step.replies, ...step.modelCalls.flatMap((c) => (c.reply && !step.replies.includes(c.reply) ? [c.reply] : []))].map((r, i) => (
                <pre key={i}>{r}</pre>
              ))}
            </details>
          ) : null}
        </section>
      ) : null}
      {step.anomalies.length ? (
        <section aria-label="Anomalies">
          <h3>Anomalies and reminders</h3>
          <ul>
            {step.anomalies.map((a) => (
              <li key={a.id}>
                {a.summary}
                {remindsModel(a) ? <span className={styles.small}> — the next model call carried a reminder to check for drift</span> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {step.gateDecisions.length ? (
        <section aria-label="Gate decisions">
          <h3>Gate decisions</h3>
          <ul>
            {step.gateDecisions.map((d) => (
              <li key={d.id}>{d.summary}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {step.validations.length ? (
        <section aria-label="Checks">
          <h3>Checks</h3>
          <ul>
            {step.validations.map((d) => (
              <li key={d.id}>{d.summary}</li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-label="Timings and cost">
        <h3>Timings, tokens and cost</h3>
        {step.timings ? (
          <p className={styles.small} data-testid="step-timings">
            sense {formatMs(step.timings.sense)} · model {formatMs(step.timings.model)} · act {formatMs(step.timings.act)} · writes {formatMs(step.timings.writes)}
          </p>
        ) : (
          <p className={styles.small}>No timings were recorded for this step.</p>
        )}
        <p className={styles.small}>
          {step.tokens.toLocaleString("en")} tokens · {formatMicroUsd(step.microUsd)}
        </p>
        {step.modelCalls.length ? (
          <ul className={styles.small}>
            {step.modelCalls.map((c, i) => (
              <li key={i}>
                {c.role} {c.model ?? ""}: {c.inputTokens} in / {c.outputTokens} out, {formatMicroUsd(c.microUsd)}
                {c.latencyMs !== null ? `, ${formatMs(c.latencyMs)}` : ""}
                {c.estimated ? " (estimated: the endpoint reported no usage)" : ""}
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </div>
  );
}

/** A report value in words: text as it is, an object as "key: value" pairs (ids left out), anything else as JSON. */
function inWords(v: unknown): string {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const parts = Object.entries(v as Record<string, unknown>).filter(([k, x]) => !/id$/i.test(k) && x !== null && x !== undefined && x !== "");
    return parts.length ? parts.map(([k, x]) => `${k.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()}: ${typeof x === "object" ? JSON.stringify(x) : String(x)}`).join(" · ") : "—";
  }
  return JSON.stringify(v);
}

function Report({ report, summary }: { report: unknown; summary: string | null }) {
  if (!report && !summary) return null;
  const r = (report && typeof report === "object" ? report : {}) as Record<string, unknown>;
  const fields = Object.entries(r).filter(([, v]) => v !== null && v !== undefined && v !== "");
  return (
    <section className={styles.section} aria-labelledby="report-title" data-testid="replay-report">
      <h2 id="report-title">Summary report</h2>
      {summary ? <p>{summary}</p> : null}
      {fields.length ? (
        <dl className={styles.report}>
          {fields.map(([k, v]) => (
            <div key={k}>
              <dt>{k.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ")}</dt>
              <dd>{Array.isArray(v) ? <ul>{v.map((x, i) => <li key={i}>{inWords(x)}</li>)}</ul> : inWords(v)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </section>
  );
}
