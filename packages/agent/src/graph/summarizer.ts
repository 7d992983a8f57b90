// The summarizer node: the structured report (goal, executed, findings, blocked items, conclusion), stored as
// evidence. Facts come from the run's records; the text model only phrases findings and the conclusion, and is
// not called at all when the quota or a pause forbids it.
import { REPORT_JSON_SCHEMA, ReportReplySchema, parseReply, reportMessages } from "../prompts/planner.ts";
import type { RunStatus } from "../ports.ts";
import { callModel } from "./effects.ts";
import { guard, type RunContext, type RunState } from "./state.ts";

export interface RunReport {
  goal: string;
  status: RunStatus;
  executed: { todoId: string; title: string; status: string; summary: string }[];
  findings: string[];
  blocked: string[];
  conclusion: string;
  outputs: Record<string, string>;
  totals: RunState["totals"];
}

const HEADLINE: Record<RunStatus, string> = {
  completed: "The goal was completed.",
  partial: "The goal was partly done.",
  blocked: "The run is blocked.",
  waiting: "The run is waiting and can resume.",
  cancelled: "The run was cancelled.",
  failed: "The run failed.",
  device_lost: "The run stopped: the connection to the phone was lost.",
};

export function factualConclusion(state: RunState, status: RunStatus): string {
  const reason = state.end?.reason ? ` ${state.end.reason}.` : "";
  return `${HEADLINE[status]}${status === "completed" ? "" : reason} ${state.executed.length} todo(s) worked on, ${state.totals.steps} step(s).`.replace(/\.\./g, ".");
}

export async function runSummarizer(ctx: RunContext, state: RunState): Promise<RunReport> {
  const cp = ctx.ports.controlPlane;
  guard(ctx);
  const status: RunStatus = state.end?.status ?? "completed";
  let findings = [...state.findings];
  let conclusion = factualConclusion(state, status);
  let tokens = 0;
  let microUsd = 0;
  const sr = await cp.shouldRun({ agentId: state.agentId, goalId: state.goalId });
  if (sr.run && !ctx.signal?.aborted) {
    const r = await callModel(ctx, state, {
      role: "summarizer",
      messages: reportMessages({
        goal: state.goal,
        executed: state.executed.map((e) => `- ${e.title}: ${e.status} — ${e.summary}`).join("\n"),
        blocked: state.blocked.map((b) => `- ${b}`).join("\n"),
        answers: [...state.findings, ...Object.entries(state.blackboard).map(([k, v]) => `${k} = ${v}`)].join("\n"),
        end: `${status}${state.end?.reason ? `: ${state.end.reason}` : ""}`,
      }),
      jsonSchema: { name: "run_report", schema: REPORT_JSON_SCHEMA },
      key: `${state.runId}:summarizer`,
    });
    if (r.ok) {
      tokens = r.value.response.usage.inputTokens + r.value.response.usage.outputTokens;
      microUsd = r.value.response.usage.microUsd;
      const reply = parseReply(r.value.response.text, ReportReplySchema);
      if (reply) {
        findings = [...new Set([...findings, ...reply.findings])];
        // The model phrases the conclusion; the status line stays factual and first.
        conclusion = status === "completed" ? reply.conclusion : `${HEADLINE[status]}${state.end?.reason ? ` ${state.end.reason}.` : ""} ${reply.conclusion}`;
      }
    }
  }
  const report: RunReport = {
    goal: state.goal,
    status,
    executed: state.executed,
    findings,
    blocked: state.blocked,
    conclusion,
    outputs: { ...state.blackboard },
    totals: state.totals,
  };
  await cp.appendEvidence({ idempotencyKey: `${state.runId}:summary`, kind: "summary", goalId: state.goalId, runId: state.runId, summary: conclusion, data: { ...report } });
  if (tokens) await cp.spend(`${state.runId}:summarizer`, { agentId: state.agentId, goalId: state.goalId, steps: 0, tokens, microUsd });
  await cp.finishRun(state.runId, { status, summary: conclusion });
  return report;
}
