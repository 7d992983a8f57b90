// Lessons: what a run learned about an app (what failed, what worked), at most three per run, deduplicated per app
// (the same text for the same app is one lesson, kept with the newest run it came from) and merged in the background
// per app (mergeLessons: paraphrases folded, contradictions resolved by the later evidence; domain/lesson-merge.ts).
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { LESSON_KINDS, MAX_LESSONS_PER_RUN, type LessonKind } from "../../domain/learning.ts";
import { planLessonMerge } from "../../domain/lesson-merge.ts";
import { pageOf, PageFields, type Page } from "../../domain/page.ts";
import { Id, LongText, ShortText, Text } from "../../domain/schemas.ts";
import { cursorOf, keysetPage, pageOrder } from "../../projections/page-query.ts";
import { actorOf, appendEvent, currentTime, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

const LessonText = Text.transform((s) => s.replace(/\s+/g, " ").trim()).pipe(z.string().min(3).max(1000));

export const AddLessonsInput = z.object({
  workspaceId: Id,
  app: ShortText,
  goal: LongText,
  runId: Id,
  lessons: z.array(z.object({ kind: z.enum(LESSON_KINDS), text: LessonText })).max(MAX_LESSONS_PER_RUN),
});
export type AddLessonsInput = z.input<typeof AddLessonsInput>;

/** A page of lessons, newest first (by when each was first learned); the cursor is opaque. */
export const ListLessonsInput = z.object({ workspaceId: Id, app: ShortText.optional(), ...PageFields });
export type ListLessonsInput = z.input<typeof ListLessonsInput>;

export const LessonRefInput = z.object({ workspaceId: Id, lessonId: Id });
export type LessonRefInput = z.input<typeof LessonRefInput>;

export const UpdateLessonInput = LessonRefInput.extend({ text: LessonText.optional(), kind: z.enum(LESSON_KINDS).optional() });
export type UpdateLessonInput = z.input<typeof UpdateLessonInput>;

export interface LessonView {
  id: string;
  app: string;
  goal: string;
  kind: LessonKind;
  text: string;
  /** The newest run it came from. */
  runId: string;
  /** Every run it came from, oldest first (a folded duplicate's runs included). */
  runIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

type Row = Omit<LessonView, "kind"> & { kind: string; workspaceId: string; mergedAt: Date | null };
const viewOf = ({ workspaceId: _w, mergedAt: _m, ...r }: Row): LessonView => ({ ...r, runIds: r.runIds.length ? r.runIds : [r.runId], kind: r.kind as LessonKind });
const sameText = (a: string, b: string) => a.toLocaleLowerCase() === b.toLocaleLowerCase();

/** Adds a run's lessons for an app; one whose text the app already has (ignoring case) is refreshed instead (newest run, goal). */
export async function addLessons(db: DbOrTx, raw: AddLessonsInput, ctx?: OperatorContext): Promise<LessonView[]> {
  const i = parseInput(AddLessonsInput, raw, "lesson.add");
  return inTx(db, async (tx) => {
    const ws = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Workspace" WHERE "id" = ${i.workspaceId} FOR UPDATE`;
    if (!ws.length) throw new StateError("NOT_FOUND", `Workspace ${i.workspaceId} does not exist.`, { workspaceId: i.workspaceId });
    const now = await currentTime(tx, ctx);
    const known = await tx.lesson.findMany({ where: { workspaceId: i.workspaceId, app: i.app } });
    const out: LessonView[] = [];
    for (const l of i.lessons) {
      const same = known.find((k) => sameText(k.text, l.text)) ?? out.find((k) => sameText(k.text, l.text));
      const row = same
        ? await tx.lesson.update({ where: { id: same.id }, data: { runId: i.runId, runIds: same.runIds.includes(i.runId) ? same.runIds : [...same.runIds, i.runId], goal: i.goal, kind: l.kind, updatedAt: now, mergedAt: null } })
        : await tx.lesson.create({ data: { id: randomId("lesson"), workspaceId: i.workspaceId, app: i.app, goal: i.goal, kind: l.kind, text: l.text, runId: i.runId, runIds: [i.runId], createdAt: now, updatedAt: now } });
      if (!out.some((o) => o.id === row.id)) out.push(viewOf(row));
    }
    if (out.length) await appendEvent(tx, { operator: "lesson.add", actor: actorOf(ctx, undefined), subjectId: i.runId, workspaceId: i.workspaceId, payload: { app: i.app, lessons: out.map((o) => o.id) } }, ctx);
    return out;
  });
}

/** A page of the workspace's lessons, newest first, for one app when given. */
const LESSON_ORDER = pageOrder(["createdAt", "desc", Date], ["id", "asc", String]);

export async function listLessons(db: DbOrTx, raw: ListLessonsInput): Promise<Page<LessonView>> {
  const i = parseInput(ListLessonsInput, raw, "lesson.list");
  // createdAt, not updatedAt: a refreshed lesson keeps its place, so a reader paging on never skips or repeats one.
  const rows = await db.lesson.findMany(keysetPage(LESSON_ORDER, i, { workspaceId: i.workspaceId, ...(i.app ? { app: i.app } : {}) }));
  return pageOf(rows.map(viewOf), i.limit, cursorOf(LESSON_ORDER));
}

/** A person rewrites a lesson (or its kind). */
export async function updateLesson(db: DbOrTx, raw: UpdateLessonInput, ctx?: OperatorContext): Promise<LessonView> {
  const i = parseInput(UpdateLessonInput, raw, "lesson.update");
  return inTx(db, async (tx) => {
    const before = await tx.lesson.findFirst({ where: { id: i.lessonId, workspaceId: i.workspaceId } });
    if (!before) throw new StateError("NOT_FOUND", `Lesson ${i.lessonId} does not exist in this workspace.`, { lessonId: i.lessonId });
    if (i.text && !sameText(i.text, before.text)) {
      const clash = await tx.lesson.findFirst({ where: { workspaceId: i.workspaceId, app: before.app, text: { equals: i.text, mode: "insensitive" }, NOT: { id: before.id } } });
      if (clash) throw new StateError("CONFLICT", `${before.app} already has this lesson; edit or delete that one instead.`, { lessonId: clash.id });
    }
    const row = await tx.lesson.update({ where: { id: before.id }, data: { ...(i.text ? { text: i.text } : {}), ...(i.kind ? { kind: i.kind } : {}), updatedAt: await currentTime(tx, ctx), mergedAt: null } });
    await appendEvent(tx, { operator: "lesson.update", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId, payload: {} }, ctx);
    return viewOf(row);
  });
}

export async function deleteLesson(db: DbOrTx, raw: LessonRefInput, ctx?: OperatorContext): Promise<{ deleted: true }> {
  const i = parseInput(LessonRefInput, raw, "lesson.delete");
  return inTx(db, async (tx) => {
    const row = await tx.lesson.findFirst({ where: { id: i.lessonId, workspaceId: i.workspaceId } });
    if (!row) throw new StateError("NOT_FOUND", `Lesson ${i.lessonId} does not exist in this workspace.`, { lessonId: i.lessonId });
    await tx.lesson.delete({ where: { id: row.id } });
    await appendEvent(tx, { operator: "lesson.delete", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId, payload: { app: row.app } }, ctx);
    return { deleted: true as const };
  });
}

export const MergeLessonsInput = z.object({ apps: z.number().int().min(1).max(1000).default(50) });
export type MergeLessonsInput = z.input<typeof MergeLessonsInput>;

export interface MergeLessonsResult {
  /** How many (workspace, app) pairs were merged in this pass. */
  apps: number;
  folded: number;
  contradicted: number;
}

/**
 * One background pass: for up to `apps` apps with a lesson added or edited since their last merge, folds the
 * lessons that say the same thing into the oldest (it names every run they came from, its newest run and evidence
 * time are the latest) and drops each lesson a later one contradicts. Under the workspace's row lock, the one
 * addLessons takes, so a run's lessons arriving meanwhile wait for the merge and are merged on the next pass.
 * Each app merged with a change gets one lesson.merge Event naming what was folded into what and what contradicted what.
 */
export async function mergeLessons(db: DbOrTx, raw: MergeLessonsInput = {}, ctx?: OperatorContext): Promise<MergeLessonsResult> {
  const i = parseInput(MergeLessonsInput, raw, "lesson.merge");
  const due = await db.$queryRaw<{ workspaceId: string; app: string }[]>`SELECT DISTINCT "workspaceId", "app" FROM "Lesson" WHERE "mergedAt" IS NULL ORDER BY "workspaceId", "app" LIMIT ${i.apps}`;
  const out: MergeLessonsResult = { apps: 0, folded: 0, contradicted: 0 };
  for (const { workspaceId, app } of due) {
    await inTx(db, async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "Workspace" WHERE "id" = ${workspaceId} FOR UPDATE`;
      const rows = await tx.lesson.findMany({ where: { workspaceId, app } });
      const plan = planLessonMerge(rows.map((r) => ({ id: r.id, kind: r.kind as LessonKind, text: r.text, runId: r.runId, runIds: r.runIds, at: r.updatedAt })));
      const gone = [...plan.folded.map((f) => f.id), ...plan.contradicted.map((c) => c.id)];
      if (gone.length) await tx.lesson.deleteMany({ where: { id: { in: gone }, workspaceId } });
      for (const k of plan.kept) if (k.changed) await tx.lesson.update({ where: { id: k.id }, data: { runIds: k.runIds, runId: k.runId, updatedAt: k.at } });
      await tx.lesson.updateMany({ where: { workspaceId, app, mergedAt: null }, data: { mergedAt: await currentTime(tx, ctx) } });
      if (gone.length) {
        await appendEvent(tx, { operator: "lesson.merge", actor: actorOf(ctx, undefined), subjectId: workspaceId, workspaceId, payload: { app, folded: plan.folded, contradicted: plan.contradicted } }, ctx);
      }
      out.apps++;
      out.folded += plan.folded.length;
      out.contradicted += plan.contradicted.length;
    });
  }
  return out;
}
