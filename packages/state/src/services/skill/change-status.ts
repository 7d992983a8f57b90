// A person's change of a skill's status, each an audited Event (the operator and who acted): disable (never offered),
// enable (back to the status it had before it was disabled — enabling confirms nothing), approve (validated by a
// person's word, with no replay made; the Event says so). Only people call these: the API refuses agent tokens.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { SKILL_STATUSES, type SkillStatus } from "../../domain/learning.ts";
import { actorOf, appendEvent, currentTime, inTx, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { held, SkillRefInput, viewOf, type SkillView } from "./skills.ts";

export const SKILL_CHANGES = ["disable", "enable", "approve"] as const;
export type SkillChange = (typeof SKILL_CHANGES)[number];

export const ChangeSkillStatusInput = SkillRefInput.extend({ change: z.enum(SKILL_CHANGES) });
export type ChangeSkillStatusInput = z.input<typeof ChangeSkillStatusInput>;

export async function changeSkillStatus(db: DbOrTx, raw: ChangeSkillStatusInput, ctx?: OperatorContext): Promise<SkillView> {
  const i = parseInput(ChangeSkillStatusInput, raw, `skill.${raw.change}`);
  return inTx(db, async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "Skill" WHERE "id" = ${i.skillId} FOR UPDATE`;
    const before = await held(tx, i.workspaceId, i.skillId);
    const from = before.status as SkillStatus;
    let to: SkillStatus;
    let payload: Record<string, unknown>;
    if (i.change === "disable") {
      if (from === "disabled") return viewOf(before);
      to = "disabled";
      payload = { statusBefore: from, version: before.version };
    } else if (i.change === "enable") {
      if (from !== "disabled") throw new StateError("CONFLICT", `Skill "${before.name}" is ${from}, not disabled: there is nothing to enable.`, { skillId: before.id, status: from });
      to = await statusBeforeDisabled(tx, i.workspaceId, before.id, before.version);
      payload = { statusBefore: from, version: before.version };
    } else {
      if (from === "disabled") throw new StateError("CONFLICT", `Skill "${before.name}" is disabled: enable it before approving it.`, { skillId: before.id, status: from });
      if (from === "validated") return viewOf(before);
      to = "validated";
      payload = { statusBefore: from, version: before.version, by: "person", replayed: false, note: "A person approved this version; no replay was made." };
    }
    const row = await tx.skill.update({ where: { id: before.id }, data: { status: to, updatedAt: await currentTime(tx, ctx) } });
    await appendEvent(tx, { operator: `skill.${i.change}`, actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId, payload: { ...payload, status: to } }, ctx);
    return viewOf(row);
  });
}

/**
 * The status the skill had when it was last disabled, if its version is still the one disabled; a candidate
 * otherwise (a repair or an edit while disabled made steps nobody has confirmed).
 */
async function statusBeforeDisabled(tx: Tx, workspaceId: string, skillId: string, version: number): Promise<SkillStatus> {
  const rows = await tx.$queryRaw<{ statusBefore: string | null; version: number | null }[]>`
    SELECT "payload"->>'statusBefore' AS "statusBefore", ("payload"->>'version')::int AS "version" FROM "Event"
    WHERE "workspaceId" = ${workspaceId} AND "operator" = 'skill.disable' AND "subjectId" = ${skillId}
    ORDER BY "id" DESC LIMIT 1`;
  const last = rows[0];
  const status = SKILL_STATUSES.find((s) => s === last?.statusBefore && s !== "disabled");
  return status && last?.version === version ? status : "candidate";
}
