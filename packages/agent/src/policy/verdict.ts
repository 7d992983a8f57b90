// What every judgement of the permission checkpoint writes into: the tier as it rises (never falls), the kind
// and rule that set it, the evidence quoted from the screen, and whether the guard model should be asked.
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";
import type { AppCategory } from "./apps.ts";
import type { Category } from "./lexicon.ts";
import type { CompiledWords } from "./wordsets.ts";

export type Tier = "normal" | "confirm" | "high_risk";
export const RANK: Record<Tier, number> = { normal: 0, confirm: 1, high_risk: 2 };

/** Tier of a category's commit. */
export const CATEGORY_TIER: Record<Category, Tier> = {
  money: "high_risk",
  destructive: "high_risk",
  communication: "high_risk",
  credentials: "high_risk",
  permission: "high_risk",
  install: "high_risk",
  account: "confirm",
  social: "confirm",
  calendar: "confirm",
  personal_data: "confirm",
};

export const COMMIT_CATEGORIES: readonly Category[] = ["money", "destructive", "communication", "credentials", "permission", "install"];

export class Verdict {
  tier: Tier = "normal";
  kind: string;
  ruleId = "action.harmless";
  evidence: string[] = [];
  unsure = false;
  commitShaped = false;
  constructor(kind: string) {
    this.kind = kind;
  }
  raise(tier: Tier, kind: string, ruleId: string, evidence: string): void {
    if (RANK[tier] > RANK[this.tier]) {
      this.tier = tier;
      this.kind = kind;
      this.ruleId = ruleId;
      this.evidence.unshift(evidence);
    } else if (tier !== "normal") this.evidence.push(evidence);
  }
  normal(ruleId: string, evidence: string): void {
    if (this.tier !== "normal") return;
    this.ruleId = ruleId;
    this.evidence = [evidence];
  }
  doubt(evidence: string): void {
    this.unsure = true;
    this.evidence.push(`unsure: ${evidence}`);
  }
  note(evidence: string): void {
    this.evidence.push(evidence);
  }
}

/** A quotation of screen text for evidence, cut to `n` characters. */
export const q = (s: string, n = 60) => JSON.stringify(s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One decision's inputs as the judgements read them. */
export interface Scene {
  action: Action;
  /** The sensed tree, or on a blind screen the tree with what OCR read laid into it. */
  tree: UiNode | null | undefined;
  /** The tree's words were read from the screenshot: which drawn words are buttons cannot be told. */
  drawn?: boolean;
  w: CompiledWords;
  app: string;
  appCat: AppCategory | null;
}
