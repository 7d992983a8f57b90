import { describe, expect, it } from "vitest";
import { useTestDatabase, seedClaimed, seedGoal } from "../../testing/index.ts";
import { GOAL_STATUSES, GOAL_TRANSITIONS, type GoalEvent } from "../../domain/goal-transitions.ts";
import { type StateError } from "../../domain/errors.ts";
import { updateGoal } from "./update-goal.ts";
import { pauseGoal } from "./pause-goal.ts";
import { resumeGoal } from "./resume-goal.ts";
import { cancelGoal } from "./cancel-goal.ts";
import { createGoal } from "./create-goal.ts";
import { startTodo } from "../todo/start-todo.ts";
import { transitionGoal } from "./transition-goal.ts";

const t = useTestDatabase();

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("goal", () => {
  it("create appends one event; invalid input names the field", async () => {
    const g = await seedGoal(t.db, { bounds: ["only the booking app"], nonGoals: ["no payments"] });
    expect(g).toMatchObject({ status: "active", version: 1, bounds: ["only the booking app"] });
    expect(await t.db.event.count({ where: { goalId: g.id, operator: "goal.create" } })).toBe(1);
    const e = await err(createGoal(t.db, { title: "", objective: "x", workspaceId: g.workspaceId }));
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toMatch(/^goal\.create: title:/);
    expect((await err(seedGoal(t.db, { id: g.id })))?.code).toBe("CONFLICT");
  });

  it("update is optimistic on version: a stale writer gets CONFLICT with the current version", async () => {
    const g = await seedGoal(t.db);
    const a = await updateGoal(t.db, { goalId: g.id, version: 1, title: "Book a table for four" });
    expect(a.version).toBe(2);
    const stale = await err(updateGoal(t.db, { goalId: g.id, version: 1, objective: "other" }));
    expect(stale?.code).toBe("CONFLICT");
    expect(stale?.details).toMatchObject({ expectedVersion: 1, currentVersion: 2 });
    expect((await t.db.goal.findUniqueOrThrow({ where: { id: g.id } })).objective).toBe(g.objective);
    expect((await err(updateGoal(t.db, { goalId: "goal_none", version: 1, title: "x" })))?.code).toBe("NOT_FOUND");
  });

  const ops = { pause: pauseGoal, resume: resumeGoal, cancel: cancelGoal } as const;
  for (const from of GOAL_STATUSES) {
    for (const event of ["pause", "resume", "cancel", "complete"] as GoalEvent[]) {
      const to = GOAL_TRANSITIONS[from][event];
      it(`${from} --${event}--> ${to ?? "ILLEGAL_TRANSITION"}`, async () => {
        const g = await seedGoal(t.db);
        await t.db.$transaction(async (tx) => {
          if (from === "paused") await transitionGoal(tx, g.id, "pause", undefined);
          if (from === "cancelled") await transitionGoal(tx, g.id, "cancel", undefined);
          if (from === "completed") await transitionGoal(tx, g.id, "complete", undefined);
        });
        const run = () => (event === "complete" ? t.db.$transaction((tx) => transitionGoal(tx, g.id, "complete", undefined)) : ops[event](t.db, { goalId: g.id }));
        if (to) expect((await run()).status).toBe(to);
        else {
          const e = await err(run());
          expect(e?.code).toBe("ILLEGAL_TRANSITION");
          expect(e?.message).toContain(`it is ${from}`);
        }
      });
    }
  }

  it("cancel ends the active leases of its todos, so their holders' next write conflicts", async () => {
    const { goal, todo, agent, claim } = await seedClaimed(t.db);
    await cancelGoal(t.db, { goalId: goal.id, reason: "trip cancelled" });
    expect(await t.db.lease.count({ where: { todoId: todo.id, status: "active" } })).toBe(0);
    const e = await err(startTodo(t.db, { todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey }));
    expect(e?.code).toBe("CONFLICT");
    expect(e?.message).toContain("released");
  });
});
