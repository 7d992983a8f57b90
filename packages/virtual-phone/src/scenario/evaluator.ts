// Scores a task against the phone's state: weighted checks, and failIf rules that zero the score.
import type { Task } from "./schema.ts";
import { evaluatePredicate, type ValueScope } from "./values.ts";

export interface TaskEvaluation {
  task: string;
  score: number;
  reason: string;
  checks: { name: string; passed: boolean; weight: number }[];
  failed?: string;
}

export function evaluateTask(task: Task, scope: Omit<ValueScope, "params">): TaskEvaluation {
  const s: ValueScope = { ...scope, params: task.params as Record<string, unknown> };
  const checks = task.evaluator.checks.map((c) => ({ name: c.name, passed: evaluatePredicate(c.when, s), weight: c.weight }));
  const fail = task.evaluator.failIf.find((f) => evaluatePredicate(f.when, s));
  if (fail) return { task: task.id, score: 0, reason: `failed: ${fail.reason}`, checks, failed: fail.reason };
  const total = checks.reduce((a, c) => a + c.weight, 0);
  const got = checks.filter((c) => c.passed).reduce((a, c) => a + c.weight, 0);
  const score = total ? Math.round((got / total) * 1000) / 1000 : 0;
  const missing = checks.filter((c) => !c.passed).map((c) => c.name);
  const reason = missing.length === 0 ? `all ${checks.length} checks passed` : `${checks.length - missing.length}/${checks.length} checks passed; missing: ${missing.join("; ")}`;
  return { task: task.id, score, reason, checks };
}

/** The goal text with {param} placeholders filled in. */
export function taskGoal(task: Task): string {
  return task.goal.replace(/\{(\w+)\}/g, (m, k: string) => (k in task.params ? String(task.params[k]) : m));
}
