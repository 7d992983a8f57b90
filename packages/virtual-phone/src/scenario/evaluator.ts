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

/** Scores with the task's own params, or a variant's (taskParams). */
export function evaluateTask(task: Task, scope: Omit<ValueScope, "params">, params: Task["params"] = task.params): TaskEvaluation {
  const s: ValueScope = { ...scope, params: params as Record<string, unknown> };
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

/** The goal text with {param} placeholders filled in (the task's own params, or a variant's). */
export function taskGoal(task: Task, params: Task["params"] = task.params): string {
  return task.goal.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));
}

/** The params of a variant: 0 is the task's own, n the task's variants[n - 1]. */
export function taskParams(task: Task, variant = 0): Task["params"] {
  if (!Number.isInteger(variant) || variant < 0 || variant > task.variants.length) {
    throw new TaskVariantError(`task "${task.id}" has no variant ${variant}: it has ${task.variants.length === 0 ? "only its own params (variant 0)" : `variants 0 (its own params) to ${task.variants.length}`}; GET /tasks lists them`);
  }
  return variant === 0 ? task.params : task.variants[variant - 1]!;
}

export class TaskVariantError extends Error {
  readonly code = "TASK_VARIANT_NOT_FOUND";
}
