"use client";
// A run's progress as this tab drives it: current todo, step n of the budget, time and money spent, the gate it waits on.
import Link from "next/link";
import { useEffect, useState } from "react";
import { formatMicroUsd } from "../../lib/labels.ts";
import { formatDuration } from "../time-left.tsx";
import type { RunProgress } from "./runner-store.tsx";
import { TakeoverPanel } from "./takeover-panel.tsx";
import styles from "./runner.module.css";

const PHASE: Record<RunProgress["phase"], string> = {
  starting: "Starting…",
  waiting: "Waiting for the previous tab's lease to expire",
  running: "Running",
  stopping: "Stopping: writing the summary…",
  ended: "Ended",
  failed: "Failed",
};

export function RunProgressView({ progress: p }: { progress: RunProgress }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (p.endedAt !== null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [p.endedAt]);
  const elapsed = (p.endedAt ?? now) - p.startedAt;
  return (
    <div className={styles.progress} data-testid="run-progress" data-phase={p.phase} data-run-id={p.runId ?? ""}>
      <p className={styles.phase} role="status">
        <strong>{PHASE[p.phase]}</strong>
        {p.phase === "running" && p.node ? ` — ${p.node}` : null}
        {p.resumed && p.phase !== "starting" ? " (resumed from its checkpoint)" : null}
        {p.byWorker ? " (taken in worker mode)" : null}
      </p>
      {p.waitingFor ? (
        <p className={styles.note}>
          {p.waitingFor.holder} holds the run&apos;s todo until {new Date(p.waitingFor.until).toLocaleTimeString()}; this tab resumes the run then.
        </p>
      ) : null}
      <dl className={styles.facts}>
        <dt>Current todo</dt>
        <dd data-testid="run-todo">{p.todo ? p.todo.title : p.node === "planner" ? "planning…" : "—"}</dd>
        <dt>Step</dt>
        <dd data-testid="run-step">
          {p.step} of {p.budget}
          <meter className={styles.meter} min={0} max={p.budget} value={Math.min(p.step, p.budget)} aria-label="Steps used of the run's budget" />
        </dd>
        <dt>Time</dt>
        <dd>{formatDuration(Math.max(0, elapsed))}</dd>
        <dt>Spent</dt>
        <dd data-testid="run-spent">
          {formatMicroUsd(p.microUsd)} · {p.tokens.toLocaleString("en")} tokens
        </dd>
        {p.lastAction ? (
          <>
            <dt>Last action</dt>
            <dd>{p.lastAction}</dd>
          </>
        ) : null}
      </dl>
      {p.gate ? (
        <p className={styles.gate} role="alert">
          Waiting for a person: {p.gate.question} <Link href={`/gates/${encodeURIComponent(p.gate.gateId)}`}>Review the gate</Link>
        </p>
      ) : null}
      {p.runId && (p.phase === "running" || p.phase === "waiting") ? <TakeoverPanel runId={p.runId} /> : null}
      {p.outcome ? (
        <p className={styles.outcome} data-testid="run-outcome" data-status={p.outcome.status}>
          Run {p.outcome.status} ({p.outcome.endReason.replaceAll("_", " ")}){p.outcome.reason ? `: ${p.outcome.reason}` : ""}
        </p>
      ) : null}
      {p.error ? (
        <p className={styles.error} role="alert">
          The run stopped: {p.error}
        </p>
      ) : null}
      {p.runId ? (
        <p>
          <Link href={`/runs/${encodeURIComponent(p.runId)}`}>Open the run&apos;s steps and replay</Link>
        </p>
      ) : null}
    </div>
  );
}
