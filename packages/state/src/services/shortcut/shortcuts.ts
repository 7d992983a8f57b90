// Deeplink shortcuts of an app version, as the phone's package manager declares them. A shortcut is discovered,
// then tried on a connected phone: the expected screen appeared (validated, offered to the planner) or not
// (retired, for good: one failed validation is enough, and a retired shortcut is never offered again).
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { SHORTCUT_STATUSES, type ShortcutStatus } from "../../domain/learning.ts";
import { shortcutStatusText, type ShortcutStatusText } from "../../domain/shortcut-status.ts";
import { pageOf, PageFields, type Page } from "../../domain/page.ts";
import { Id, ShortText, Text } from "../../domain/schemas.ts";
import { cursorOf, keysetPage, pageOrder } from "../../projections/page-query.ts";
import { actorOf, appendEvent, currentTime, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

const Uri = Text.trim().min(3).max(2000).regex(/^[a-z][a-z0-9+.-]*:/i, "must be a URI with a scheme (scheme:…)");

export const SaveShortcutsInput = z.object({
  workspaceId: Id,
  app: ShortText,
  appVersion: ShortText,
  shortcuts: z.array(z.object({ uri: Uri, activity: ShortText })).max(200),
});
export type SaveShortcutsInput = z.input<typeof SaveShortcutsInput>;

/** A page of shortcuts by app, app version and URI; the cursor is opaque. */
export const ListShortcutsInput = z.object({ workspaceId: Id, app: ShortText.optional(), appVersion: ShortText.optional(), status: z.enum(SHORTCUT_STATUSES).optional(), ...PageFields });
export type ListShortcutsInput = z.input<typeof ListShortcutsInput>;

export const RecordShortcutValidationInput = z.object({ workspaceId: Id, shortcutId: Id, ok: z.boolean(), reason: Text.max(1000).optional() });
export type RecordShortcutValidationInput = z.input<typeof RecordShortcutValidationInput>;

export interface ShortcutView {
  id: string;
  app: string;
  appVersion: string;
  uri: string;
  activity: string;
  status: ShortcutStatus;
  /** The phone's own words for a failed try (kept for the record; people read statusText). */
  reason: string | null;
  /** The status in words and what to do about it (known failures mapped; never raw `am start` text). */
  statusText: ShortcutStatusText;
  validatedAt: Date | null;
  createdAt: Date;
}

type Row = Omit<ShortcutView, "status" | "statusText"> & { status: string; workspaceId: string };
const viewOf = ({ workspaceId: _w, ...r }: Row): ShortcutView => {
  const status = r.status as ShortcutStatus;
  return { ...r, status, statusText: shortcutStatusText({ status, reason: r.reason, uri: r.uri, activity: r.activity }) };
};

/** Records what the package manager declares for an app version; known URIs keep their status. Returns the app version's shortcuts. */
export async function saveShortcuts(db: DbOrTx, raw: SaveShortcutsInput, ctx?: OperatorContext): Promise<ShortcutView[]> {
  const i = parseInput(SaveShortcutsInput, raw, "shortcut.save");
  return inTx(db, async (tx) => {
    const ws = await tx.workspace.findUnique({ where: { id: i.workspaceId }, select: { id: true } });
    if (!ws) throw new StateError("NOT_FOUND", `Workspace ${i.workspaceId} does not exist.`, { workspaceId: i.workspaceId });
    const now = await currentTime(tx, ctx);
    const made = await tx.shortcut.createMany({
      data: i.shortcuts.map((s) => ({ id: randomId("shortcut"), workspaceId: i.workspaceId, app: i.app, appVersion: i.appVersion, uri: s.uri, activity: s.activity, createdAt: now })),
      skipDuplicates: true,
    });
    if (made.count) await appendEvent(tx, { operator: "shortcut.save", actor: actorOf(ctx, undefined), subjectId: `${i.app}@${i.appVersion}`, workspaceId: i.workspaceId, payload: { app: i.app, appVersion: i.appVersion, added: made.count } }, ctx);
    const rows = await tx.shortcut.findMany({ where: { workspaceId: i.workspaceId, app: i.app, appVersion: i.appVersion }, orderBy: [{ uri: "asc" }] });
    return rows.map(viewOf);
  });
}

/** A page of the workspace's shortcuts, narrowed to an app, an app version and a status when given. */
const SHORTCUT_ORDER = pageOrder(["app", "asc", String], ["appVersion", "asc", String], ["uri", "asc", String], ["id", "asc", String]);

export async function listShortcuts(db: DbOrTx, raw: ListShortcutsInput): Promise<Page<ShortcutView>> {
  const i = parseInput(ListShortcutsInput, raw, "shortcut.list");
  const rows = await db.shortcut.findMany(
    keysetPage(SHORTCUT_ORDER, i, { workspaceId: i.workspaceId, ...(i.app ? { app: i.app } : {}), ...(i.appVersion ? { appVersion: i.appVersion } : {}), ...(i.status ? { status: i.status } : {}) }),
  );
  return pageOf(rows.map(viewOf), i.limit, cursorOf(SHORTCUT_ORDER));
}

/** One validation on a phone: ok validates (a retired shortcut stays retired); a failure retires it with its reason. */
export async function recordShortcutValidation(db: DbOrTx, raw: RecordShortcutValidationInput, ctx?: OperatorContext): Promise<ShortcutView> {
  const i = parseInput(RecordShortcutValidationInput, raw, "shortcut.recordValidation");
  return inTx(db, async (tx) => {
    const before = await tx.shortcut.findFirst({ where: { id: i.shortcutId, workspaceId: i.workspaceId } });
    if (!before) throw new StateError("NOT_FOUND", `Shortcut ${i.shortcutId} does not exist in this workspace.`, { shortcutId: i.shortcutId });
    if (before.status === "retired") return viewOf(before);
    const now = await currentTime(tx, ctx);
    const row = await tx.shortcut.update({
      where: { id: before.id },
      data: i.ok ? { status: "validated", validatedAt: now, reason: null } : { status: "retired", reason: i.reason ?? "the expected screen did not appear" },
    });
    await appendEvent(tx, { operator: i.ok ? "shortcut.validate" : "shortcut.retire", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId, payload: { uri: row.uri, ...(i.ok ? {} : { reason: row.reason }) } }, ctx);
    return viewOf(row);
  });
}
