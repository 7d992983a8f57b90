// Skills of a workspace: steps distilled from a successful run for one app version, with their state contract
// (the body's shape is the agent's; the core stores it as a JSON object within the caps). One row per
// (app, app version, name): saving again is a repair in place — the version rises and the run it came from is kept.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { SKILL_FAILURES_TO_RETIRE, SKILL_STATUSES, type SkillStatus } from "../../domain/learning.ts";
import { pageOf, PageFields, type Page } from "../../domain/page.ts";
import { Id, IdempotencyKey, jsonObject, LongText, ShortText } from "../../domain/schemas.ts";
import { cursorOf, keysetPage, pageOrder } from "../../projections/page-query.ts";
import { skillStepDiff, skillStepsOf, type SkillStepChange, type SkillStepsView } from "../../domain/skill-steps.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { actorOf, appendEvent, currentTime, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

export const SaveSkillInput = z.object({
  workspaceId: Id,
  app: ShortText,
  appVersion: ShortText,
  name: ShortText,
  goal: LongText,
  body: jsonObject(),
  runId: Id,
});
export type SaveSkillInput = z.input<typeof SaveSkillInput>;

/** A page of skills, newest first (by when each was first saved); the cursor is opaque. */
export const ListSkillsInput = z.object({ workspaceId: Id, app: ShortText.optional(), appVersion: ShortText.optional(), status: z.enum(SKILL_STATUSES).optional(), ...PageFields });
export type ListSkillsInput = z.input<typeof ListSkillsInput>;

export const SkillRefInput = z.object({ workspaceId: Id, skillId: Id });
export type SkillRefInput = z.input<typeof SkillRefInput>;

/** A person's edit of a skill's words or steps; its status changes are changeSkillStatus. */
export const UpdateSkillInput = SkillRefInput.extend({ name: ShortText.optional(), goal: LongText.optional(), body: jsonObject().optional() });
export type UpdateSkillInput = z.input<typeof UpdateSkillInput>;

/**
 * One use of a skill by a run's todo: it reached its end screen (ok), or a step's screen was not as expected and it
 * handed back before step `failedAt` (0-based; the number of steps: its end screen) for `reason`; `params`, the values
 * its parameters were given (what it typed and looked for this time). A repeat of its key (a client's retry) counts
 * nothing again and answers the skill as it is.
 */
export const RecordSkillUseInput = SkillRefInput.extend({
  idempotencyKey: IdempotencyKey,
  runId: Id,
  todoId: Id,
  ok: z.boolean(),
  failedAt: z.number().int().min(0).max(10_000).optional(),
  reason: LongText.max(1000).optional(),
  params: z.record(ShortText.max(100), LongText.max(2000)).refine((p) => Object.keys(p).length <= 50, "at most 50 parameters").optional(),
});
export type RecordSkillUseInput = z.input<typeof RecordSkillUseInput>;

export interface SkillView {
  id: string;
  app: string;
  appVersion: string;
  name: string;
  goal: string;
  body: Record<string, unknown>;
  /** Its steps as people read them (parameters, each step's action and expected screen, the end screen); null when the body is not readable. */
  steps: SkillStepsView | null;
  status: SkillStatus;
  version: number;
  runId: string;
  successes: number;
  failures: number;
  createdAt: Date;
  updatedAt: Date;
}

export type Row = Omit<SkillView, "status" | "body" | "steps"> & { status: string; body: unknown; workspaceId: string };
export const viewOf = ({ workspaceId: _w, ...r }: Row): SkillView => ({ ...r, status: r.status as SkillStatus, body: r.body as Record<string, unknown>, steps: skillStepsOf(r.body) });

/**
 * Saves a distilled skill: a new one is a candidate at version 1; an existing one (same app, app version and name)
 * is repaired in place — its body and run are replaced, its version rises, and it is a candidate again until a
 * run's use validates it (a skill a person disabled stays disabled; a retired one is a candidate again). An agent
 * may save: that proposes a candidate, never a validated skill.
 */
export async function saveSkill(db: DbOrTx, raw: SaveSkillInput, ctx?: OperatorContext): Promise<SkillView> {
  const i = parseInput(SaveSkillInput, raw, "skill.save");
  return inTx(db, async (tx) => {
    const ws = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Workspace" WHERE "id" = ${i.workspaceId} FOR UPDATE`;
    if (!ws.length) throw new StateError("NOT_FOUND", `Workspace ${i.workspaceId} does not exist.`, { workspaceId: i.workspaceId });
    const now = await currentTime(tx, ctx);
    const existing = await tx.skill.findUnique({ where: { workspaceId_app_appVersion_name: { workspaceId: i.workspaceId, app: i.app, appVersion: i.appVersion, name: i.name } } });
    const row = existing
      ? await tx.skill.update({
          where: { id: existing.id },
          data: { goal: i.goal, body: i.body as Prisma.InputJsonObject, runId: i.runId, version: existing.version + 1, status: existing.status === "disabled" ? "disabled" : "candidate", updatedAt: now },
        })
      : await tx.skill.create({
          data: { id: randomId("skill"), workspaceId: i.workspaceId, app: i.app, appVersion: i.appVersion, name: i.name, goal: i.goal, body: i.body as Prisma.InputJsonObject, runId: i.runId, createdAt: now, updatedAt: now },
        });
    await tx.skillVersion.create({ data: { skillId: row.id, version: row.version, body: i.body as Prisma.InputJsonObject, runId: i.runId, createdAt: now } });
    await appendEvent(tx, { operator: existing ? "skill.repair" : "skill.save", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId, payload: { app: row.app, appVersion: row.appVersion, version: row.version, runId: row.runId } }, ctx);
    return viewOf(row);
  });
}

/** A page of the workspace's skills, newest first; narrowed to an app, an app version and a status when given. */
// createdAt, not updatedAt: a repaired or used skill keeps its place, so a reader paging on never skips one.
const SKILL_ORDER = pageOrder(["createdAt", "desc", Date], ["id", "asc", String]);

export async function listSkills(db: DbOrTx, raw: ListSkillsInput): Promise<Page<SkillView>> {
  const i = parseInput(ListSkillsInput, raw, "skill.list");
  const rows = await db.skill.findMany(
    keysetPage(SKILL_ORDER, i, { workspaceId: i.workspaceId, ...(i.app ? { app: i.app } : {}), ...(i.appVersion ? { appVersion: i.appVersion } : {}), ...(i.status ? { status: i.status } : {}) }),
  );
  return pageOf(rows.map(viewOf), i.limit, cursorOf(SKILL_ORDER));
}

export async function held(tx: DbOrTx, workspaceId: string, skillId: string) {
  const row = await tx.skill.findFirst({ where: { id: skillId, workspaceId } });
  if (!row) throw new StateError("NOT_FOUND", `Skill ${skillId} does not exist in this workspace.`, { skillId });
  return row;
}

/** A person edits a skill (name, goal, body). A new body is the next version, a candidate again (a disabled skill stays disabled). */
export async function updateSkill(db: DbOrTx, raw: UpdateSkillInput, ctx?: OperatorContext): Promise<SkillView> {
  const i = parseInput(UpdateSkillInput, raw, "skill.update");
  return inTx(db, async (tx) => {
    const before = await held(tx, i.workspaceId, i.skillId);
    const status = i.body && before.status !== "disabled" ? "candidate" : before.status;
    const row = await tx.skill.update({
      where: { id: before.id },
      data: { ...(i.name ? { name: i.name } : {}), ...(i.goal !== undefined ? { goal: i.goal } : {}), ...(i.body ? { body: i.body as Prisma.InputJsonObject, version: before.version + 1 } : {}), status, updatedAt: await currentTime(tx, ctx) },
    }).catch((e: unknown) => {
      if ((e as { code?: string }).code === "P2002") throw new StateError("CONFLICT", `Another skill of ${before.app} ${before.appVersion} is already named "${i.name}"; choose another name.`, { name: i.name });
      throw e;
    });
    if (i.body) await tx.skillVersion.create({ data: { skillId: row.id, version: row.version, body: i.body as Prisma.InputJsonObject, runId: row.runId, createdAt: row.updatedAt } });
    await appendEvent(tx, { operator: "skill.update", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId, payload: { status: row.status, version: row.version, ...(i.body ? { statusBefore: before.status } : {}) } }, ctx);
    return viewOf(row);
  });
}

/**
 * Counts one use of a skill by a run's todo. A use that handed back is a failure; the second failure in a row of the
 * same version retires that version (it is offered no more until a run repairs it). A use that reached the end
 * validates nothing by itself: the core decides when the run ends (validateSkillsByUse), from whether its todo was
 * accepted. The use is an Event of the todo's goal, so the run's end finds its uses; its payload is the skill's uses
 * as people read them (ok or where it handed back and why, the version, the run and todo, the values it was given).
 */
export async function recordSkillUse(db: DbOrTx, raw: RecordSkillUseInput, ctx?: OperatorContext): Promise<SkillView> {
  const i = parseInput(RecordSkillUseInput, raw, "skill.recordUse");
  return inTx(db, async (tx) => {
    const before = await held(tx, i.workspaceId, i.skillId);
    const todo = await tx.todo.findFirst({ where: { id: i.todoId, goal: { workspaceId: i.workspaceId } }, select: { goalId: true } });
    if (!todo) throw new StateError("NOT_FOUND", `Todo ${i.todoId} does not exist in this workspace.`, { todoId: i.todoId });
    await tx.$queryRaw`SELECT "id" FROM "Skill" WHERE "id" = ${before.id} FOR UPDATE`;
    // Under the skill's lock, a use recorded before with this key is seen: its retry changes nothing.
    const [seen] = await tx.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS "n" FROM "Event"
      WHERE "workspaceId" = ${i.workspaceId} AND "operator" = 'skill.recordUse' AND "subjectId" = ${before.id} AND "payload"->>'key' = ${i.idempotencyKey}`;
    if (seen!.n > 0) return viewOf(await tx.skill.findUniqueOrThrow({ where: { id: before.id } }));
    // A disabled skill stays disabled; a retired one is retired already.
    const retire = !i.ok && (before.status === "candidate" || before.status === "validated") && (await failuresInARow(tx, i.workspaceId, before.id, before.version)) + 1 >= SKILL_FAILURES_TO_RETIRE;
    const row = await tx.skill.update({
      where: { id: i.skillId },
      data: { ...(i.ok ? { successes: { increment: 1 } } : { failures: { increment: 1 } }), ...(retire ? { status: "retired", updatedAt: await currentTime(tx, ctx) } : {}) },
    });
    await appendEvent(
      tx,
      {
        operator: "skill.recordUse",
        actor: actorOf(ctx, undefined),
        subjectId: row.id,
        workspaceId: i.workspaceId,
        goalId: todo.goalId,
        payload: { key: i.idempotencyKey, ok: i.ok, version: before.version, runId: i.runId, todoId: i.todoId, ...(i.failedAt !== undefined ? { failedAt: i.failedAt } : {}), ...(i.reason ? { reason: i.reason } : {}), ...(i.params ? { params: i.params } : {}), ...(retire ? { retired: true } : {}) },
      },
      ctx,
    );
    return viewOf(row);
  });
}

/** How many of this version's latest uses failed, one after another (committed uses, newest first). */
async function failuresInARow(tx: DbOrTx, workspaceId: string, skillId: string, version: number): Promise<number> {
  const uses = await tx.$queryRaw<{ ok: boolean; version: number }[]>`
    SELECT ("payload"->>'ok')::boolean AS "ok", ("payload"->>'version')::int AS "version" FROM "Event"
    WHERE "workspaceId" = ${workspaceId} AND "operator" = 'skill.recordUse' AND "subjectId" = ${skillId}
    ORDER BY "id" DESC LIMIT ${SKILL_FAILURES_TO_RETIRE}`;
  let n = 0;
  for (const u of uses) {
    if (u.ok || u.version !== version) break;
    n++;
  }
  return n;
}

export async function deleteSkill(db: DbOrTx, raw: SkillRefInput, ctx?: OperatorContext): Promise<{ deleted: true }> {
  const i = parseInput(SkillRefInput, raw, "skill.delete");
  return inTx(db, async (tx) => {
    const row = await held(tx, i.workspaceId, i.skillId);
    await tx.skill.delete({ where: { id: row.id } });
    await appendEvent(tx, { operator: "skill.delete", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId, payload: { app: row.app, name: row.name } }, ctx);
    return { deleted: true as const };
  });
}

export interface SkillVersionView {
  version: number;
  /** The run it was distilled or repaired from. */
  runId: string;
  createdAt: Date;
  steps: SkillStepsView | null;
  /** What changed in its steps from the version before; null for the first version kept (or when either is unreadable). */
  changes: SkillStepChange[] | null;
}

/** A skill's versions kept, newest first, each with what changed from the one before (a step-level diff). */
export async function listSkillVersions(db: DbOrTx, raw: SkillRefInput): Promise<SkillVersionView[]> {
  const i = parseInput(SkillRefInput, raw, "skill.versions");
  await held(db, i.workspaceId, i.skillId);
  const rows = await db.skillVersion.findMany({ where: { skillId: i.skillId }, orderBy: { version: "asc" } });
  const out = rows.map((r, k): SkillVersionView => {
    const steps = skillStepsOf(r.body);
    const prev = k > 0 ? skillStepsOf(rows[k - 1]!.body) : null;
    return { version: r.version, runId: r.runId, createdAt: r.createdAt, steps, changes: steps && prev ? skillStepDiff(prev.steps, steps.steps) : null };
  });
  return out.reverse();
}
