import { describe, expect, it } from "vitest";
import { useTestDatabase, seedAgent, seedGoal, seedWorkspaceId } from "../../testing/index.ts";
import { type StateError } from "../../domain/errors.ts";
import { appendStep } from "./append-step.ts";
import { finishRun } from "./finish-run.ts";
import { resumeRun } from "./resume-run.ts";
import { saveCheckpoint } from "./save-checkpoint.ts";
import { startRun } from "./start-run.ts";
import { heartbeatAgent } from "../agent/heartbeat-agent.ts";
import { registerAgent } from "../agent/register-agent.ts";

const t = useTestDatabase();

describe("agents", () => {
  it("register is an upsert; heartbeat needs a registered agent", async () => {
    const workspaceId = await seedWorkspaceId(t.db);
    const a = await registerAgent(t.db, { id: "agent_tab_1", name: "Tab", kind: "browser", capabilities: ["android"], workspaceId });
    const again = await registerAgent(t.db, { id: a.id, name: "Tab (Pixel)", kind: "browser", capabilities: ["android", "camera"], workspaceId });
    expect(again.capabilities).toEqual(["android", "camera"]);
    expect((await heartbeatAgent(t.db, { agentId: a.id })).agentId).toBe(a.id);
    expect((await heartbeatAgent(t.db, { agentId: "agent_ghost" }).catch((e: StateError) => e) as StateError).code).toBe("NOT_FOUND");
  });
});

describe("runs and steps", () => {
  it("checkpoints after every node and resumes on another worker from the last checkpoint", async () => {
    const goal = await seedGoal(t.db);
    const w1 = await seedAgent(t.db);
    const w2 = await seedAgent(t.db);
    const run = await startRun(t.db, { goalId: goal.id, agentId: w1.id });
    for (const [index, node] of ["planner", "executor"].entries()) {
      const s = await appendStep(t.db, { runId: run.id, agentId: w1.id, index, node, action: { type: "tap", x: 10, y: 20 }, tokens: 100 });
      expect(s.created).toBe(true);
      await saveCheckpoint(t.db, { runId: run.id, agentId: w1.id, checkpoint: { nextNode: index === 0 ? "executor" : "summarizer", step: index } });
    }
    // A resumed worker may repeat the last step: the first one stands.
    const repeat = await appendStep(t.db, { runId: run.id, index: 1, node: "executor" });
    expect(repeat.created).toBe(false);

    const resumed = await resumeRun(t.db, { runId: run.id, agentId: w2.id });
    expect(resumed).toMatchObject({ agentId: w2.id, checkpoint: { nextNode: "summarizer", step: 1 }, lastStepIndex: 1 });
    const stale = await saveCheckpoint(t.db, { runId: run.id, agentId: w1.id, checkpoint: {} }).catch((e: StateError) => e);
    expect((stale as StateError).code).toBe("CONFLICT");
    await appendStep(t.db, { runId: run.id, agentId: w2.id, index: 2, node: "summarizer" });
    const done = await finishRun(t.db, { runId: run.id, agentId: w2.id, status: "completed", summary: "table booked" });
    expect(done.status).toBe("completed");
    expect(done.endedAt).not.toBeNull();
    const late = await appendStep(t.db, { runId: run.id, index: 3, node: "executor" }).catch((e: StateError) => e);
    expect((late as StateError).code).toBe("ILLEGAL_TRANSITION");
    expect(await t.db.step.count({ where: { runId: run.id } })).toBe(3);
  });
});
