import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { isLive, runGoals, touches } from "./live-scope.ts";

// Query keys as tRPC's TanStack integration makes them: [path, { input, type }].
const key = (path: string[], input?: Record<string, unknown>) => [path, { ...(input ? { input } : {}), type: "query" }] as const;

describe("which cached queries an event refreshes", () => {
  const client = new QueryClient();
  client.setQueryData(key(["run", "replay"], { runId: "run_a" }), { run: { id: "run_a", goalId: "goal_a" } });
  client.setQueryData(key(["run", "get"], { runId: "run_b" }), { id: "run_b", goalId: "goal_b" });
  const runGoal = runGoals(client);

  it("a run's queries follow the goal their loaded run answer names", () => {
    expect(runGoal("run_a")).toBe("goal_a");
    expect(runGoal("run_b")).toBe("goal_b");
    const steps = key(["run", "steps"], { runId: "run_a", limit: 20 });
    expect(touches(steps, new Set(["goal_a"]), runGoal)).toBe(true);
    expect(touches(steps, new Set(["goal_b"]), runGoal)).toBe(false);
    expect(touches(key(["share", "list"], { runId: "run_b" }), new Set(["goal_a"]), runGoal)).toBe(false);
  });

  it("a goal's queries follow their input's goal; unscoped queries and runs not loaded yet take every event", () => {
    expect(touches(key(["board", "get"], { goalId: "goal_a" }), new Set(["goal_b"]), runGoal)).toBe(false);
    expect(touches(key(["board", "get"], { goalId: "goal_a" }), new Set(["goal_a"]), runGoal)).toBe(true);
    expect(touches(key(["board", "goals"], {}), new Set(["goal_b"]), runGoal)).toBe(true);
    expect(touches(key(["run", "steps"], { runId: "run_unloaded" }), new Set(["goal_b"]), runGoal)).toBe(true);
    expect(touches(key(["run", "steps"], { runId: "run_a" }), "all", runGoal)).toBe(true);
  });

  it("only the routers whose answers events change are live", () => {
    expect(isLive(key(["run", "steps"], { runId: "run_a" }))).toBe(true);
    expect(isLive(key(["health", "get"]))).toBe(false);
    expect(isLive(["not-a-path"])).toBe(false);
  });
});
