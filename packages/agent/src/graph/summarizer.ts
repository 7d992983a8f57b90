// The summarizer node: the structured report (goal, executed, findings, blocked items, conclusion), stored as
// evidence. Facts come from the run's records; the text model only phrases findings and the conclusion, and is
// not called at all when the quota or a pause forbids it.
import { REPORT_JSON_SCHEMA, ReportReplySchema, parseReply, reportMessages } from "../prompts/planner.ts";
import type { RunEndReason, RunEndStatus } from "../ports.ts";
import { callModel } from "./effects.ts";
import { guard, type RunCommon, type RunContext, type SummarizerState } from "./state.ts";

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

export async function runSummarizer(ctx: RunContext, state: SummarizerState): Promise<RunReport> {
  const cp = ctx.ports.controlPlane;
  guard(ctx);
  const status = state.end.status;
  let findings = [...state.findings];
  let lessons: RunReport["lessons"] = [];
  let conclusion = factualConclusion(state);
  let tokens = 0;
  let microUsd = 0;
  // A run resumed after a stop is summarised again when it ends again: each end has its own keys (a retry of the
  // same end has the same ones), so its report and its spend are not taken for the earlier stop's.
  const endKey = `${state.runId}:summary:${state.stepIndex}:${state.plannerCalls}`;
  const sr = await cp.shouldRun({ agentId: state.agentId, goalId: state.goalId });
  if (sr.decision === "run" && !ctx.signal?.aborted) {
    const r = await callModel(ctx, state, {
      role: "summarizer",
      messages: reportMessages({
        goal: state.goal,
        executed: state.executed.map((e) => `- ${e.title}: ${e.status} — ${e.summary}`).join("\n"),
        blocked: state.blocked.map((b) => `- ${b}`).join("\n"),
        answers: [...state.findings, ...Object.entries(state.blackboard).map(([k, v]) => `${k} = ${v}`)].join("\n"),
        end: `${status} (${state.end.reason})${state.end.detail ? `: ${state.end.detail}` : ""}`,
      }),
      jsonSchema: { name: "run_report", schema: REPORT_JSON_SCHEMA },
      key: `${endKey}:summarizer`,
    }, state.totals);
    if (r.ok) {
      tokens = r.value.spend.tokens;
      microUsd = r.value.spend.microUsd;
      const reply = parseReply(r.value.response.text, ReportReplySchema);
      if (reply) {
        findings = [...new Set([...findings, ...reply.findings])];
        lessons = reply.lessons.slice(0, 3);
        // The model phrases the conclusion; the status line stays factual and first.
        conclusion = status === "completed" ? reply.conclusion : `${headline(state)}${state.end.detail ? ` ${state.end.detail}.` : ""} ${reply.conclusion}`;
      }
    }
  }
  const report: RunReport = {
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
  await cp.appendEvidence({ idempotencyKey: endKey, kind: "summary", goalId: state.goalId, runId: state.runId, summary: conclusion, data: { ...report } });
  if (tokens) await cp.spendQuota({ key: `${endKey}:summarizer`, agentId: state.agentId, goalId: state.goalId, runId: state.runId, steps: 0, tokens, microUsd });
  await cp.finishRun({ runId: state.runId, agentId: state.agentId, status, endReason: state.end.reason, summary: conclusion.slice(0, 2000) });
  return report;
}
