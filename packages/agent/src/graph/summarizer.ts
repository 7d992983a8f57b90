// The summarizer node as a pure transition: summarize(state, input) → { state, effects }. The structured report
// (goal, executed, findings, blocked items, conclusion) is decided here and stored as evidence by the runner
// (graph/run.ts), which performs the effects and feeds back what they returned. Facts come from the run's records;
// the text model only phrases findings and the conclusion, and is not asked at all when the quota or a pause
// forbids it.
import { REPORT_JSON_SCHEMA, ReportReplySchema, parseReply, reportMessages } from "../prompts/planner.ts";
import type { ChatMessage, RunEndReason, RunEndStatus } from "../ports.ts";
import type { RecordEffect } from "./runner/record.ts";
import { addUsage, type Observation } from "./executor.ts";
import type { RunCommon, SummarizerState } from "./state.ts";
import type { z } from "zod";

export interface RunReport {
  goal: string;
  status: RunEndStatus;
  endReason: RunEndReason;
  executed: { todoId: string; title: string; status: string; summary: string }[];
  findings: string[];
  blocked: string[];
  conclusion: string;
  outputs: Record<string, string>;
  totals: RunCommon["totals"];
  /** What the summarizer learned for the next run in this app (at most three): what failed, what worked. */
  lessons: { kind: "failed" | "worked"; text: string }[];
}

const HEADLINE: Record<RunEndStatus, string> = {
  completed: "The goal was completed.",
  partial: "The goal was partly done.",
  blocked: "The run is blocked and can resume.",
  cancelled: "The run was cancelled.",
  failed: "The run failed.",
};

/** The first line of the report: the status, and for a lost phone that (it is the one thing to fix first). */
export function headline(state: SummarizerState): string {
  return state.end.reason === "device_lost" ? "The run stopped: the connection to the phone was lost." : HEADLINE[state.end.status];
}

export function factualConclusion(state: SummarizerState): string {
  const reason = state.end.detail ? ` ${state.end.detail}.` : "";
  return `${headline(state)}${state.end.status === "completed" ? "" : reason} ${state.executed.length} todo(s) worked on, ${state.totals.steps} step(s).`.replace(/\.\./g, ".");
}

/** What the runner saw when it performed the summarizer's last input effect. */
export type SummarizerInput =
  | { type: "begin" }
  /** The core's word on whether the run may still call a model (its quota, a pause), and whether the run was cancelled. */
  | { type: "may_run"; run: boolean; cancelled: boolean }
  | Extract<Observation, { type: "replied" | "model_failed" }>;

export type SummarizerEffect =
  /** Ask the core whether the run may still call a model. */
  | { type: "should_run" }
  | { type: "ask_model"; role: "summarizer"; messages: ChatMessage[]; jsonSchema: { name: string; schema: Record<string, unknown> }; key: string }
  /** The report's evidence and the run's finish (the model call was metered where it was made: nothing to spend here). */
  | RecordEffect
  /** The report is written and the run finished: the summarizer's last effect. */
  | { type: "done"; report: RunReport };

export interface SummarizeResult {
  state: SummarizerState;
  effects: SummarizerEffect[];
}

/**
 * A run resumed after a stop is summarised again when it ends again: each end has its own keys (a retry of the same
 * end has the same ones), so its report and its spend are not taken for the earlier stop's.
 */
const endKeyOf = (state: SummarizerState): string => `${state.runId}:summary:${state.stepIndex}:${state.plannerCalls}`;

/** The summarizer's transition. Pure: the same state and input give the same result; the state handed in is not changed. */
export function summarize(state: SummarizerState, input: SummarizerInput): SummarizeResult {
  switch (input.type) {
    case "begin":
      return { state, effects: [{ type: "should_run" }] };
    case "may_run":
      if (input.run && !input.cancelled) return { state, effects: [askReport(state)] };
      return report(state, null);
    case "replied": {
      const s = withUsage(state, input.usage);
      return report(s, parseReply(input.text, ReportReplySchema));
    }
    case "model_failed":
      return report(withUsage(state, input.usage), null);
  }
}

function withUsage(state: SummarizerState, usage: RunCommon["totals"]): SummarizerState {
  const totals = { ...state.totals };
  addUsage(totals, usage);
  return { ...state, totals };
}

function askReport(state: SummarizerState): SummarizerEffect {
  return {
    type: "ask_model",
    role: "summarizer",
    messages: reportMessages({
      goal: state.goal,
      executed: state.executed.map((e) => `- ${e.title}: ${e.status} — ${e.summary}`).join("\n"),
      blocked: state.blocked.map((b) => `- ${b}`).join("\n"),
      answers: [...state.findings, ...Object.entries(state.blackboard).map(([k, v]) => `${k} = ${v}`)].join("\n"),
      end: `${state.end.status} (${state.end.reason})${state.end.detail ? `: ${state.end.detail}` : ""}`,
    }),
    jsonSchema: { name: "run_report", schema: REPORT_JSON_SCHEMA },
    key: `${endKeyOf(state)}:summarizer`,
  };
}

/** The report from the run's facts and the model's reply (when it was asked and readable), and the writes that store it and finish the run. */
function report(state: SummarizerState, reply: z.infer<typeof ReportReplySchema> | null): SummarizeResult {
  const status = state.end.status;
  const endKey = endKeyOf(state);
  let findings = [...state.findings];
  let lessons: RunReport["lessons"] = [];
  let conclusion = factualConclusion(state);
  if (reply) {
    findings = [...new Set([...findings, ...reply.findings])];
    lessons = reply.lessons.slice(0, 3);
    // The model phrases the conclusion; the status line stays factual and first.
    conclusion = status === "completed" ? reply.conclusion : `${headline(state)}${state.end.detail ? ` ${state.end.detail}.` : ""} ${reply.conclusion}`;
  }
  const r: RunReport = {
    goal: state.goal,
    status,
    endReason: state.end.reason,
    executed: state.executed,
    findings,
    blocked: state.blocked,
    conclusion,
    outputs: { ...state.blackboard },
    totals: state.totals,
    lessons,
  };
  const effects: SummarizerEffect[] = [{ type: "evidence", input: { idempotencyKey: endKey, kind: "summary", goalId: state.goalId, runId: state.runId, summary: conclusion, data: { ...r } } }];
  effects.push({ type: "finish_run", status, endReason: state.end.reason, summary: conclusion.slice(0, 2000) }, { type: "done", report: r });
  return { state, effects };
}
