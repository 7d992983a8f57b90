// A workspace's permission-policy rules: append-only versions (1, 2, …), the newest one in force. The state core
// stores them as a JSON object within the JSON caps; their shape is the agent's (the API validates it on save).
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, jsonObject } from "../../domain/schemas.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { actorOf, appendEvent, currentTime, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

export const SavePolicyRulesInput = z.object({ workspaceId: Id, rules: jsonObject() });
export type SavePolicyRulesInput = z.input<typeof SavePolicyRulesInput>;

export const CurrentPolicyRulesInput = z.object({ workspaceId: Id });
export type CurrentPolicyRulesInput = z.input<typeof CurrentPolicyRulesInput>;

export interface PolicyRulesView {
  version: number;
  rules: Record<string, unknown>;
  createdBy: string;
  createdAt: Date;
}

/** Saves the rules as the workspace's next version (admin-only: the API declares it). */
export async function savePolicyRules(db: DbOrTx, raw: SavePolicyRulesInput, ctx?: OperatorContext): Promise<PolicyRulesView> {
  const i = parseInput(SavePolicyRulesInput, raw, "policy.save");
  return inTx(db, async (tx) => {
    // Locking the workspace row orders concurrent saves, so each gets the next version instead of a duplicate.
    const ws = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Workspace" WHERE "id" = ${i.workspaceId} FOR UPDATE`;
    if (!ws.length) throw new StateError("NOT_FOUND", `Workspace ${i.workspaceId} does not exist.`, { workspaceId: i.workspaceId });
    const last = await tx.policyRules.findFirst({ where: { workspaceId: i.workspaceId }, orderBy: { version: "desc" }, select: { version: true } });
    const actor = actorOf(ctx, undefined);
    const row = await tx.policyRules.create({
      data: {
        id: randomId("policy"),
        workspaceId: i.workspaceId,
        version: (last?.version ?? 0) + 1,
        rules: i.rules as Prisma.InputJsonObject,
        createdBy: actor,
        createdAt: await currentTime(tx, ctx),
      },
    });
    await appendEvent(tx, { operator: "policy.save", actor, subjectId: row.id, workspaceId: i.workspaceId, payload: { version: row.version } }, ctx);
    return viewOf(row);
  });
}

/** The workspace's rules in force (its newest version), or null when it never saved any. */
export async function currentPolicyRules(db: DbOrTx, raw: CurrentPolicyRulesInput): Promise<PolicyRulesView | null> {
  const i = parseInput(CurrentPolicyRulesInput, raw, "policy.get");
  const row = await db.policyRules.findFirst({ where: { workspaceId: i.workspaceId }, orderBy: { version: "desc" } });
  return row ? viewOf(row) : null;
}

function viewOf(row: { version: number; rules: unknown; createdBy: string; createdAt: Date }): PolicyRulesView {
  return { version: row.version, rules: row.rules as Record<string, unknown>, createdBy: row.createdBy, createdAt: row.createdAt };
}
