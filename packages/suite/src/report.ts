// What a suite prints: one row per attempt (task, seed, score, steps, tokens, cost, seconds; with shared learning the
// order it started in) and the last line of
// figures, `tasks=… success_rate=… mean_steps=… mean_input_tokens=… mean_cost_usd=… p50_task_s=…`.
import { isSuccessfulAttempt } from "@phoneloop/state/domain";
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

/** With shared learning the table ends with the place each attempt started in. */
export const ORDER_COLUMN = "order";

/** One attempt as a table row; tokens are input + output; its start order when learning was shared. */
export function attemptRow(a: AttemptResult): string[] {
  return [a.taskId, String(a.seed), a.score.toFixed(2), String(a.steps), String(a.inputTokens + a.outputTokens), (a.costMicroUsd / 1e6).toFixed(4), (a.durationMs / 1000).toFixed(1), ...(a.order ? [String(a.order)] : [])];
}

/** Rows padded into columns (numbers right-aligned); an order column when the rows carry one. */
export function formatTable(rows: string[][]): string {
  const header: string[] = rows.some((r) => r.length > TABLE_HEADER.length) ? [...TABLE_HEADER, ORDER_COLUMN] : [...TABLE_HEADER];
  const all = [header, ...rows.map((r) => header.map((_, c) => r[c] ?? ""))];
  const widths = header.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  return all.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")).join("\n");
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
