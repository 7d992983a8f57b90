// Every evidence kind round-trips through its schema with the payloads its writers write; a malformed one is refused
// naming its field; a stored row of an older shape is read with the fields that still fit.
import { describe, expect, it } from "vitest";
import { EVIDENCE_DATA, parseEvidenceData, readEvidenceData, readStepOutcome, StepOutcome } from "./evidence.ts";
import { EVIDENCE_KINDS } from "./vocabulary.ts";
import { EVIDENCE_SAMPLES, MALFORMED_EVIDENCE, STEP_OUTCOME_SAMPLE } from "../testing/evidence-samples.ts";

describe("evidence schemas", () => {
  it("has one schema for each kind", () => {
    expect(Object.keys(EVIDENCE_DATA).sort()).toEqual([...EVIDENCE_KINDS].sort());
  });

  for (const kind of EVIDENCE_KINDS) {
    it(`${kind}: what its writers write round-trips through the schema (as stored JSON) unchanged`, () => {
      expect(EVIDENCE_SAMPLES[kind].length).toBeGreaterThan(0);
      for (const sample of EVIDENCE_SAMPLES[kind]) {
        const stored = JSON.parse(JSON.stringify(sample)) as unknown;
        const r = parseEvidenceData(kind, stored);
        expect(r.error?.issues ?? []).toEqual([]);
        expect(r.data).toEqual(sample);
        expect(readEvidenceData(kind, stored)).toEqual(sample);
      }
    });

    it(`${kind}: a malformed payload is refused naming its field`, () => {
      const bad = MALFORMED_EVIDENCE[kind];
      const r = parseEvidenceData(kind, bad.data);
      expect(r.success).toBe(false);
      expect(["data", ...r.error!.issues[0]!.path.map(String)].join(".")).toBe(bad.field);
    });
  }

  it("an unknown field is refused, naming it (a writer's drift shows)", () => {
    const r = parseEvidenceData("gate_decision", { ...EVIDENCE_SAMPLES.gate_decision[0], approver: "ana" });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toContain("approver");
  });

  it("a stored row of an older shape keeps the fields that still fit, and reading never throws", () => {
    // A report from before lessons and promptTokensCounted, with a field no writer writes any more.
    const old = { goal: "g", status: "completed", endReason: "all_done", executed: [], findings: ["f"], blocked: [], conclusion: "Done.", outputs: {}, totals: { steps: 1, modelCalls: 1, inputTokens: 1, outputTokens: 1, microUsd: 0 }, mood: "good" };
    expect(parseEvidenceData("summary", old).success).toBe(false);
    expect(readEvidenceData("summary", old)).toEqual({ goal: "g", status: "completed", endReason: "all_done", executed: [], findings: ["f"], blocked: [], conclusion: "Done.", outputs: {} });
    // A proxied call with a field of an older proxy: its usage still counts.
    const call = readEvidenceData("model_call", { via: "api", role: "executor", model: "m", inputTokens: 10, outputTokens: 2, microUsd: 5, latencyMs: 1, cost: "0.01" });
    expect(call).toMatchObject({ inputTokens: 10, outputTokens: 2, microUsd: 5 });
    for (const kind of EVIDENCE_KINDS) for (const junk of [null, 3, "x", [1], { a: { b: 1 } }]) expect(() => readEvidenceData(kind, junk)).not.toThrow();
    expect(readStepOutcome({ outcome: "ok", timings: "slow" })).toEqual({ outcome: "ok" });
  });

  it("a step's outcome round-trips; one without its outcome is refused", () => {
    expect(StepOutcome.parse(JSON.parse(JSON.stringify(STEP_OUTCOME_SAMPLE)))).toEqual(STEP_OUTCOME_SAMPLE);
    expect(StepOutcome.safeParse({ app: "x" }).error!.issues[0]!.path).toEqual(["outcome"]);
  });
});
