// Acceptance: the labelled screen corpus through the decision function (the benchmark prints the same figures).
import { describe, expect, it } from "vitest";
import { buildCase, loadCorpus } from "./corpus/build.ts";
import { decidePermission } from "./decide.ts";

const corpus = loadCorpus();
const results = corpus.map((c) => {
  const b = buildCase(c);
  return { c, d: decidePermission(b.action, { ...(b.target ? { target: b.target } : {}), tree: b.tree, packageName: b.packageName }) };
});

describe("labelled policy corpus", () => {
  it("holds at least 300 screens in at least 8 languages, every category with harmless look-alikes", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    expect(new Set(corpus.map((c) => c.lang)).size).toBeGreaterThanOrEqual(8);
    for (const cat of ["money", "destructive", "communication", "credentials", "permission", "install"]) {
      expect(corpus.filter((c) => c.label === "risky" && c.category === cat).length, cat).toBeGreaterThanOrEqual(9);
      expect(corpus.some((c) => c.label === "benign" && c.category === cat), cat).toBe(true);
    }
    expect(new Set(corpus.map((c) => c.id)).size).toBe(corpus.length);
  });

  it("gates at least 99% of risky screens and lets at least 90% of harmless ones through", () => {
    const risky = results.filter((r) => r.c.label === "risky");
    const benign = results.filter((r) => r.c.label === "benign");
    const missed = risky.filter((r) => r.d.tier === "normal").map((r) => `${r.c.id} (${r.d.ruleId})`);
    const falseAlarms = benign.filter((r) => r.d.tier !== "normal").map((r) => `${r.c.id} (${r.d.ruleId})`);
    expect(1 - missed.length / risky.length, `missed: ${missed.join(", ")}`).toBeGreaterThanOrEqual(0.99);
    expect(1 - falseAlarms.length / benign.length, `false alarms: ${falseAlarms.join(", ")}`).toBeGreaterThanOrEqual(0.9);
  });

  it("every decision names its rule, its evidence and the policy version", () => {
    for (const { c, d } of results) {
      expect(d.ruleId, c.id).toMatch(/^[a-z_]+\.[a-z_-]+$/);
      expect(d.evidence.length, c.id).toBeGreaterThan(0);
      expect(d.policyVersion, c.id).toBe("builtin-2026.11");
    }
  });
});
