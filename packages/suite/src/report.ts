// What a suite prints: one row per attempt (task, seed, with several trials the trial, score, steps, tokens, cost,
// seconds; with shared learning the order it started in), per task the success rate with its 95% interval, and the
// last line of figures, `tasks=… success_rate=… mean_steps=… mean_input_tokens=… mean_cost_usd=… p50_task_s=…`.
import { isSuccessfulAttempt, wilsonInterval, type SuiteSettings } from "@phoneloop/state/domain";
import type { AttemptResult } from "./attempt.ts";

export interface SuiteSummary {
  /** Distinct tasks. */
  tasks: number;
  attempts: number;
  successRate: number;
  meanSteps: number;
  meanInputTokens: number;
  meanCostUsd: number;
  p50TaskSeconds: number;
}

export function summarize(attempts: AttemptResult[]): SuiteSummary {
  const n = attempts.length;
  const mean = (f: (a: AttemptResult) => number) => (n ? attempts.reduce((s, a) => s + f(a), 0) / n : 0);
  const secs = attempts.map((a) => a.durationMs / 1000).sort((a, b) => a - b);
  return {
    tasks: new Set(attempts.map((a) => a.taskId)).size,
    attempts: n,
    successRate: n ? attempts.filter(isSuccessfulAttempt).length / n : 0,
    meanSteps: mean((a) => a.steps),
    meanInputTokens: mean((a) => a.inputTokens),
    meanCostUsd: mean((a) => a.costMicroUsd) / 1e6,
    p50TaskSeconds: n ? secs[Math.ceil(n / 2) - 1]! : 0,
  };
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

/** The last line, exactly the figures the issue names. */
export function summaryLine(s: SuiteSummary): string {
  return `tasks=${s.tasks} success_rate=${round(s.successRate, 3)} mean_steps=${round(s.meanSteps, 1)} mean_input_tokens=${Math.round(s.meanInputTokens)} mean_cost_usd=${round(s.meanCostUsd, 6)} p50_task_s=${round(s.p50TaskSeconds, 1)}`;
}

export const TABLE_HEADER = ["task", "seed", "score", "steps", "tokens", "cost_usd", "seconds"] as const;

/** With several trials the table has a trial column after the seed. */
export const TRIAL_COLUMN = "trial";
/** With shared learning the table ends with the place each attempt started in. */
export const ORDER_COLUMN = "order";

/** The attempts as a table (numbers right-aligned): a trial column when a task and seed ran more than once, an order column when learning was shared. */
export function formatTable(attempts: AttemptResult[]): string {
  const trials = attempts.some((a) => a.trial > 1);
  const ordered = attempts.some((a) => a.order);
  const header: string[] = [...TABLE_HEADER];
  if (trials) header.splice(2, 0, TRIAL_COLUMN);
  if (ordered) header.push(ORDER_COLUMN);
  const rows = attempts.map((a) => [
    a.taskId,
    String(a.seed),
    ...(trials ? [String(a.trial)] : []),
    a.score.toFixed(2),
    String(a.steps),
    String(a.inputTokens + a.outputTokens),
    (a.costMicroUsd / 1e6).toFixed(4),
    (a.durationMs / 1000).toFixed(1),
    ...(ordered ? [a.order ? String(a.order) : ""] : []),
  ]);
  return padded([header, ...rows]);
}

/** Per task: successes of attempts and the success rate with its 95% Wilson interval. */
export function formatTaskSuccess(attempts: AttemptResult[]): string {
  const tasks = [...new Set(attempts.map((a) => a.taskId))];
  const rows = tasks.map((task) => {
    const of = attempts.filter((a) => a.taskId === task);
    const successes = of.filter(isSuccessfulAttempt).length;
    const r = wilsonInterval(successes, of.length);
    return [task, `${successes}/${of.length}`, r.rate.toFixed(2), `${r.low.toFixed(2)}–${r.high.toFixed(2)}`];
  });
  return padded([["task", "successes", "rate", "95% interval"], ...rows]);
}

function padded(all: string[][]): string {
  const widths = all[0]!.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  return all.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")).join("\n");
}

/** The settings the figures depend on, in one line: the prompts' fingerprint, then per role model, adapter and sampling. */
export function settingsLine(s: SuiteSettings): string {
  const role = (name: string, r: SuiteSettings["roles"]["executor"]) =>
    `${name} ${r.model} (${r.adapter} ${r.adapterVersion}, temperature ${r.temperature ?? "endpoint's"}, top_p ${r.topP ?? "endpoint's"}, seed ${r.seed ?? "none"}, max ${r.maxOutputTokens} tokens)`;
  return `settings: prompts ${s.prompts}; ${role("executor", s.roles.executor)}; ${role("planner", s.roles.planner)}; ${role("summarizer", s.roles.summarizer)}`;
}

/** What the attempts learned from: the snapshot every one started from, or, shared, the order they started in. */
export function learningLine(out: { learning: "isolated" | "shared"; snapshot: { skills: unknown[]; shortcuts: unknown[]; lessons: unknown[] } | null; attempts: AttemptResult[] }): string {
  if (out.learning === "isolated") {
    const s = out.snapshot;
    return `learning isolated: every attempt started from the workspace's learning at the suite's start (${s?.skills.length ?? 0} skills, ${s?.shortcuts.length ?? 0} shortcuts, ${s?.lessons.length ?? 0} lessons)`;
  }
  const started = [...out.attempts].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  return `learning shared: each attempt read what the attempts that ended before it left; started in this order: ${started.map((a) => `${a.order}. ${a.taskId} seed ${a.seed}`).join(", ")}`;
}
