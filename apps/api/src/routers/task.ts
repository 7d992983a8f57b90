import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { loadScenario, taskGoal, type Task } from "@phoneloop/virtual-phone";
import { procedure } from "../trpc.ts";

/** A built-in task of the virtual phone's pack, as a goal's starting point: what to ask, how it is judged. */
export interface BuiltinTask {
  id: string;
  /** The objective, its parameters filled in. */
  goal: string;
  apps: string[];
  tags: string[];
  /** The step budget the pack gives the task. */
  maxSteps: number;
  /** The evaluator's checks: what must be true at the end (the goal's acceptance). */
  checks: string[];
  /** What scores 0 however the rest went (the goal's non-goals). */
  failIf: string[];
  /** The task pays for something: a high-risk step waits at a gate for a person. */
  payment: boolean;
}

function toBuiltinTask(t: Task): BuiltinTask {
  return {
    id: t.id,
    goal: taskGoal(t),
    apps: t.apps,
    tags: t.tags,
    maxSteps: t.maxSteps,
    checks: t.evaluator.checks.map((c) => c.name),
    failIf: t.evaluator.failIf.map((f) => f.reason),
    payment: t.tags.includes("payment"),
  };
}

let cached: BuiltinTask[] | undefined;
/** The pack is read once per process (the same tasks in every built-in scenario). */
export function builtinTasks(): BuiltinTask[] {
  cached ??= loadScenario("home").tasks.map(toBuiltinTask);
  return cached;
}

export const taskRouter = {
  /** The virtual phone's built-in tasks, to create a goal from (the demo phone runs them). */
  list: procedure(z.object({}).default({})).query((): BuiltinTask[] => builtinTasks()),
} satisfies TRPCRouterRecord;
