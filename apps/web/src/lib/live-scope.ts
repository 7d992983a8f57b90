// Which cached queries an event can change (the live cache refreshes only those). Pure: no React, so it is tested
// on its own (live-scope.test.ts).
import type { QueryClient } from "@tanstack/react-query";

/** Procedures whose answers an event can change; everything else (health, one blob) is immutable or local. */
export const LIVE_ROUTERS = new Set(["board", "gate", "todo", "evidence", "goal", "run", "quota", "agent", "lease", "turn", "suite"]);

/**
 * A query scoped to one goal — by its input's goalId, or by its input's runId when a loaded run.get / run.replay
 * answer names that run's goal — is refreshed only by that goal's events; unscoped ones by every event.
 */
export function touches(key: readonly unknown[], goals: Set<string> | "all", runGoal: (runId: string) => string | undefined): boolean {
  if (goals === "all") return true;
  const input = inputOf(key);
  const goalId = typeof input?.goalId === "string" ? input.goalId : typeof input?.runId === "string" ? runGoal(input.runId) : undefined;
  return goalId === undefined || goals.has(goalId);
}

function inputOf(key: readonly unknown[]): { goalId?: unknown; runId?: unknown } | undefined {
  return (key[1] as { input?: { goalId?: unknown; runId?: unknown } } | undefined)?.input;
}

/** Run id → goal id, from the run answers in the cache (a run never changes goal). */
export function runGoals(queryClient: QueryClient): (runId: string) => string | undefined {
  let known: Map<string, string> | null = null;
  return (runId) => {
    if (!known) {
      known = new Map();
      for (const q of queryClient.getQueryCache().findAll({ predicate: (q) => isRunAnswer(q.queryKey) })) {
        const data = q.state.data as { goalId?: unknown; run?: { id?: unknown; goalId?: unknown } } | undefined;
        const id = inputOf(q.queryKey)?.runId;
        const goalId = data?.goalId ?? data?.run?.goalId;
        if (typeof id === "string" && typeof goalId === "string") known.set(id, goalId);
      }
    }
    return known.get(runId);
  };
}

function isRunAnswer(key: readonly unknown[]): boolean {
  const path = key[0];
  return Array.isArray(path) && path[0] === "run" && (path[1] === "get" || path[1] === "replay");
}

// tRPC query keys start with the procedure path, e.g. [["board", "get"], { input, type }].
export function isLive(key: readonly unknown[]): boolean {
  const path = key[0];
  return Array.isArray(path) && typeof path[0] === "string" && LIVE_ROUTERS.has(path[0]);
}
