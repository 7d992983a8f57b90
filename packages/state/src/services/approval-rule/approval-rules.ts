// A workspace's approval rules, one per approval category (money, destructive, credentials, permission, other): how
// many distinct approvers a gate of the category needs, whether the run's starter or the goal's creator may be one
// of them, a time-to-live and what its expiry does (deny, or escalate to the admins). A category without a saved
// rule keeps the defaults, today's behaviour: one approver, the starter allowed, no time-to-live. A gate takes its
// category's rule when it opens (gate.open) and keeps it; a rule saved later applies to gates opened after it.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { AFTER_EXPIRY, APPROVAL_CATEGORIES, type AfterExpiry, type ApprovalCategory } from "../../domain/gate.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, currentTime, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

/** The longest time-to-live a rule may give (a week); Postgres' integer column holds up to ~24 days. */
export const MAX_APPROVAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** The most distinct approvers a rule may ask for. */
export const MAX_APPROVALS_NEEDED = 10;

export const SetApprovalRuleInput = z.object({
  workspaceId: Id,
  category: z.enum(APPROVAL_CATEGORIES),
  approvalsNeeded: z.number().int().min(1).max(MAX_APPROVALS_NEEDED),
  starterMayApprove: z.boolean(),
  /** null: no time-to-live (the opener's expiry, if any, applies). */
  ttlMs: z.number().int().min(60_000).max(MAX_APPROVAL_TTL_MS).nullable(),
  afterExpiry: z.enum(AFTER_EXPIRY),
});
export type SetApprovalRuleInput = z.input<typeof SetApprovalRuleInput>;

export const ApprovalRulesInput = z.object({ workspaceId: Id });
export type ApprovalRulesInput = z.input<typeof ApprovalRulesInput>;

export interface ApprovalRuleView {
  category: ApprovalCategory;
  approvalsNeeded: number;
  starterMayApprove: boolean;
  ttlMs: number | null;
  afterExpiry: AfterExpiry;
  /** Who saved it last and when; null for a category that keeps the defaults. */
  updatedBy: string | null;
  updatedAt: Date | null;
}

/** The rule of a category that was never saved: today's behaviour. */
export function defaultApprovalRule(category: ApprovalCategory): ApprovalRuleView {
  return { category, approvalsNeeded: 1, starterMayApprove: true, ttlMs: null, afterExpiry: "deny", updatedBy: null, updatedAt: null };
}

type RuleRow = { category: string; approvalsNeeded: number; starterMayApprove: boolean; ttlMs: number | null; afterExpiry: string; updatedBy: string; updatedAt: Date };
const viewOf = (r: RuleRow): ApprovalRuleView => ({
  category: r.category as ApprovalCategory,
  approvalsNeeded: r.approvalsNeeded,
  starterMayApprove: r.starterMayApprove,
  ttlMs: r.ttlMs,
  afterExpiry: r.afterExpiry as AfterExpiry,
  updatedBy: r.updatedBy,
  updatedAt: r.updatedAt,
});

/** Saves a category's rule (admin-only: the API declares it), with its approvalRule.set Event. */
export async function setApprovalRule(db: DbOrTx, raw: SetApprovalRuleInput, ctx?: OperatorContext): Promise<ApprovalRuleView> {
  const i = parseInput(SetApprovalRuleInput, raw, "approvalRule.set");
  if (i.afterExpiry === "escalate" && i.ttlMs === null) {
    throw new StateError("INVALID_INPUT", `approvalRule.set: ttlMs: a rule that escalates needs a time-to-live, after which its gates go to the admins.`, { issues: [{ path: "ttlMs" }] });
  }
  return inTx(db, async (tx) => {
    const ws = await tx.workspace.findUnique({ where: { id: i.workspaceId }, select: { id: true } });
    if (!ws) throw new StateError("NOT_FOUND", `Workspace ${i.workspaceId} does not exist.`, { workspaceId: i.workspaceId });
    const actor = actorOf(ctx, undefined);
    const fields = { approvalsNeeded: i.approvalsNeeded, starterMayApprove: i.starterMayApprove, ttlMs: i.ttlMs, afterExpiry: i.afterExpiry, updatedBy: actor, updatedAt: await currentTime(tx, ctx) };
    const row = await tx.approvalRule.upsert({
      where: { workspaceId_category: { workspaceId: i.workspaceId, category: i.category } },
      create: { id: randomId("arule"), workspaceId: i.workspaceId, category: i.category, ...fields },
      update: fields,
    });
    await appendEvent(tx, { operator: "approvalRule.set", actor, subjectId: row.id, workspaceId: i.workspaceId, payload: { category: i.category, approvalsNeeded: i.approvalsNeeded, starterMayApprove: i.starterMayApprove, ttlMs: i.ttlMs, afterExpiry: i.afterExpiry } }, ctx);
    return viewOf(row);
  });
}

/** Every category's rule in force, in APPROVAL_CATEGORIES' order (the defaults where none was saved). */
export async function approvalRules(db: DbOrTx, raw: ApprovalRulesInput): Promise<ApprovalRuleView[]> {
  const i = parseInput(ApprovalRulesInput, raw, "approvalRule.list");
  const rows = await db.approvalRule.findMany({ where: { workspaceId: i.workspaceId } });
  return APPROVAL_CATEGORIES.map((c) => {
    const row = rows.find((r) => r.category === c);
    return row ? viewOf(row) : defaultApprovalRule(c);
  });
}

/** One category's rule in force (gate.open reads it inside its transaction). */
export async function approvalRuleOf(db: DbOrTx, workspaceId: string, category: ApprovalCategory): Promise<ApprovalRuleView> {
  const row = await db.approvalRule.findUnique({ where: { workspaceId_category: { workspaceId, category } } });
  return row ? viewOf(row) : defaultApprovalRule(category);
}
