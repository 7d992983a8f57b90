// The core validates evidence on insert, over Postgres: every kind's data as its writers write it is stored as
// given; one malformed payload per kind is INVALID_INPUT naming the field, through evidence.append and through a
// step record, and nothing of the refused write is stored. A step's outcome is held to its schema the same way.
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedClaimed, seedGoal } from "../../testing/index.ts";
import type { StateError } from "../../domain/errors.ts";
import { EVIDENCE_KINDS } from "../../domain/vocabulary.ts";
import { EVIDENCE_SAMPLES, MALFORMED_EVIDENCE, STEP_OUTCOME_SAMPLE } from "../../testing/evidence-samples.ts";
import { appendEvidence, insertEvidence } from "./append-evidence.ts";
import { appendStep } from "../run/append-step.ts";
import { recordStep } from "../run/record-step.ts";
import { startRun } from "../run/start-run.ts";

const t = useTestDatabase();
const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("evidence is validated on insert", () => {
  it("every kind's data as its writers write it is stored as given", async () => {
    // An agent writes them: a model call the runtime metered is spent against its agent.
    const { goal, agent } = await seedClaimed(t.db);
    for (const kind of EVIDENCE_KINDS) {
      for (const [n, data] of EVIDENCE_SAMPLES[kind].entries()) {
        const r = await appendEvidence(t.db, { goalId: goal.id, agentId: agent.id, kind, summary: `${kind} ${n}`, data, idempotencyKey: `${goal.id}-${kind}-${n}` });
        expect((await t.db.evidence.findUniqueOrThrow({ where: { id: r.evidence.id } })).data).toEqual(data);
      }
    }
  });

  for (const kind of EVIDENCE_KINDS) {
    it(`${kind}: a malformed payload is INVALID_INPUT naming the field, through evidence.append and run.recordStep`, async () => {
      const { goal, todo, agent, claim } = await seedClaimed(t.db);
      const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
      const bad = MALFORMED_EVIDENCE[kind];
      const appended = await err(appendEvidence(t.db, { goalId: goal.id, runId: run.id, kind, summary: "bad", data: bad.data as Record<string, unknown>, idempotencyKey: `${run.id}-bad` }));
      expect(appended?.code).toBe("INVALID_INPUT");
      expect(appended?.message).toContain(`evidence.append: ${bad.field}`);

      const recorded = await err(
        recordStep(t.db, {
          runId: run.id,
          agentId: agent.id,
          todoId: todo.id,
          leaseKey: claim.lease.leaseKey,
          evidence: [
            { idempotencyKey: `${run.id}-good`, kind: "anomaly", summary: "fine", data: { kind: "no_change" } },
            { idempotencyKey: `${run.id}-bad-step`, kind, summary: "bad", data: bad.data as Record<string, unknown> },
          ],
        }),
      );
      expect(recorded?.code).toBe("INVALID_INPUT");
      expect(recorded?.message).toContain(`run.recordStep: evidence.1.${bad.field}`);
      expect(await t.db.evidence.count({ where: { runId: run.id } })).toBe(0);
    });
  }

  it("the core's own writers are held to the schemas too (a row inserted without an operator's input)", async () => {
    const goal = await seedGoal(t.db);
    const e = await err(t.db.$transaction((tx) => insertEvidence(tx, [{ values: { goalId: goal.id, kind: "anomaly", summary: "resumed", data: { fault: "resumed", status: "blocked" }, idempotencyKey: `${goal.id}-r` }, at: null }])));
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toContain("evidence.insert: evidence.0.data.endReason");
    expect(await t.db.evidence.count({ where: { goalId: goal.id } })).toBe(0);
  });

  it("an unknown kind is refused", async () => {
    const goal = await seedGoal(t.db);
    const e = await err(appendEvidence(t.db, { goalId: goal.id, kind: "fault" as "anomaly", summary: "x", data: { kind: "x" }, idempotencyKey: `${goal.id}-fault` }));
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toContain("kind");
  });

  it("a step's outcome and action are held to their schemas; the outcome the runtime writes is stored as given", async () => {
    const { goal, agent } = await seedClaimed(t.db);
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const bad = await err(appendStep(t.db, { runId: run.id, agentId: agent.id, index: 0, node: "executor", action: { type: "click" }, outcome: { outcome: "ok", timings: { sense: "fast" } } }));
    expect(bad?.code).toBe("INVALID_INPUT");
    expect(bad?.message).toContain("run.appendStep: outcome.timings.sense");
    const noType = await err(recordStep(t.db, { runId: run.id, agentId: agent.id, step: { index: 0, node: "executor", action: { x: 5 }, outcome: STEP_OUTCOME_SAMPLE } }));
    expect(noType?.code).toBe("INVALID_INPUT");
    expect(noType?.message).toContain("step.action");
    const ok = await appendStep(t.db, { runId: run.id, agentId: agent.id, index: 0, node: "executor", action: { type: "click", element: "3" }, outcome: STEP_OUTCOME_SAMPLE });
    expect(ok.step.outcome).toEqual(STEP_OUTCOME_SAMPLE);
  });
});
