// A workspace's WIP limits: how many todos may be claimed, running or validating at once across the workspace (the
// held lanes: a claim pulls a todo into them and it passes through each under its one lease), and how many one agent
// — one phone — may hold at once. Pending, done, failed, superseded and blocked take no limit: nothing pulls a todo
// into them (a block is where work stops for someone else; refusing it would hide the problem). A limit is enforced
// where work enters, by the claim (claimNext and claim of a named todo): a claim is refused while another todo's
// count in a held lane is at that lane's limit, or the agent already holds its limit (refusal `wip_limit`, which the
// runtime reads as "wait"). A start or a validation is never refused (a todo already held is not stopped mid-work),
// and a limit lowered below the current count moves no card: the lane reads over its limit until work leaves it.
// Claims of a workspace with a limit take turns on its WipLimits row (locked FOR UPDATE before the claim's
// statement), so two claims racing at limit − 1 cannot both pass.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id } from "../../domain/schemas.ts";
import type { TodoState } from "../../domain/todo-transitions.ts";
import { actorOf, appendEvent, currentTime, inTx, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";

/** The lanes a WIP limit may be set on: the held lanes, in the order a todo passes through them. */
export const WIP_LANES = ["claimed", "running", "validating"] as const satisfies readonly TodoState[];
export type WipLane = (typeof WIP_LANES)[number];

/** The largest limit a lane or an agent may be given. */
export const MAX_WIP_LIMIT = 1000;
const Limit = z.number().int().min(1).max(MAX_WIP_LIMIT).nullable();

export const SetWipLimitsInput = z.object({
  workspaceId: Id,
  /** Per lane; null: no limit. */
  claimed: Limit,
  running: Limit,
  validating: Limit,
  /** How many todos one agent (its phone) may hold at once; null: no limit. */
  perAgent: Limit,
});
export type SetWipLimitsInput = z.input<typeof SetWipLimitsInput>;

export const WipLimitsInput = z.object({ workspaceId: Id });
export type WipLimitsInput = z.input<typeof WipLimitsInput>;

export interface WipLimitsView {
  claimed: number | null;
  running: number | null;
  validating: number | null;
  perAgent: number | null;
  /** Who saved them last and when; null when they were never saved (no limits). */
  updatedBy: string | null;
  updatedAt: Date | null;
}

export const NO_WIP_LIMITS: WipLimitsView = { claimed: null, running: null, validating: null, perAgent: null, updatedBy: null, updatedAt: null };

type Row = { claimed: number | null; running: number | null; validating: number | null; perAgent: number | null; updatedBy: string; updatedAt: Date };
const viewOf = (r: Row): WipLimitsView => ({ claimed: r.claimed, running: r.running, validating: r.validating, perAgent: r.perAgent, updatedBy: r.updatedBy, updatedAt: r.updatedAt });

export const hasWipLimit = (l: Pick<WipLimitsView, WipLane | "perAgent">): boolean => WIP_LANES.some((s) => l[s] !== null) || l.perAgent !== null;
/** hasWipLimit in SQL, for a statement that must claim nothing in a workspace with a limit: `workspace` is its id. */
export const anyWipLimitSql = (workspace: string): string =>
  `EXISTS (SELECT 1 FROM "WipLimits" w WHERE w."workspaceId" = ${workspace} AND (${[...WIP_LANES, "perAgent"].map((c) => `w."${c}" IS NOT NULL`).join(" OR ")}))`;

/** Saves the workspace's WIP limits (admin-only: the API declares it), with its wipLimits.set Event. */
export async function setWipLimits(db: DbOrTx, raw: SetWipLimitsInput, ctx?: OperatorContext): Promise<WipLimitsView> {
  const i = parseInput(SetWipLimitsInput, raw, "wipLimits.set");
  return inTx(db, async (tx) => {
    const ws = await tx.workspace.findUnique({ where: { id: i.workspaceId }, select: { id: true } });
    if (!ws) throw new StateError("NOT_FOUND", `Workspace ${i.workspaceId} does not exist.`, { workspaceId: i.workspaceId });
    const actor = actorOf(ctx, undefined);
    const fields = { claimed: i.claimed, running: i.running, validating: i.validating, perAgent: i.perAgent, updatedBy: actor, updatedAt: await currentTime(tx, ctx) };
    const row = await tx.wipLimits.upsert({ where: { workspaceId: i.workspaceId }, create: { workspaceId: i.workspaceId, ...fields }, update: fields });
    await appendEvent(tx, { operator: "wipLimits.set", actor, subjectId: i.workspaceId, workspaceId: i.workspaceId, payload: { claimed: i.claimed, running: i.running, validating: i.validating, perAgent: i.perAgent } }, ctx);
    return viewOf(row);
  });
}

/** The workspace's WIP limits in force (all null when never saved). */
export async function wipLimits(db: DbOrTx, raw: WipLimitsInput): Promise<WipLimitsView> {
  const i = parseInput(WipLimitsInput, raw, "wipLimits.get");
  const row = await db.wipLimits.findUnique({ where: { workspaceId: i.workspaceId } });
  return row ? viewOf(row) : NO_WIP_LIMITS;
}

export type ClaimLimits = Pick<WipLimitsView, WipLane | "perAgent">;

/**
 * The limits a claim by this agent is held to, or null when its workspace has none (the claim then runs as if WIP
 * limits did not exist). With `lock` (inside the claim's transaction) the row is locked, so the workspace's claims
 * under a limit take turns. One read by primary keys.
 */
export async function claimLimitsOf(db: DbOrTx, agentId: string, lock: boolean): Promise<ClaimLimits | null> {
  const rows = lock
    ? await db.$queryRaw<ClaimLimits[]>`SELECT w."claimed", w."running", w."validating", w."perAgent" FROM "Agent" a JOIN "WipLimits" w ON w."workspaceId" = a."workspaceId" WHERE a."id" = ${agentId} FOR UPDATE OF w`
    : await db.$queryRaw<ClaimLimits[]>`SELECT w."claimed", w."running", w."validating", w."perAgent" FROM "Agent" a JOIN "WipLimits" w ON w."workspaceId" = a."workspaceId" WHERE a."id" = ${agentId}`;
  const row = rows[0];
  return row && hasWipLimit(row) ? row : null;
}

export interface WipCounts {
  /** Todos in each held lane across the workspace. */
  lanes: Record<WipLane, number>;
  /** Todos each agent holds now (an active lease not yet expired), by agent id. */
  agents: Map<string, number>;
}

/** How many todos are in each held lane of the workspace and how many each agent holds, at `at`. */
export async function wipCounts(db: DbOrTx, workspaceId: string, at: Date): Promise<WipCounts> {
  const [lanes, agents] = await Promise.all([
    db.$queryRaw<{ state: WipLane; n: number }[]>`
      SELECT t."state"::text AS "state", count(*)::int AS "n" FROM "Todo" t JOIN "Goal" g ON g."id" = t."goalId"
      WHERE t."state" IN ('claimed', 'running', 'validating') AND g."workspaceId" = ${workspaceId} GROUP BY t."state"`,
    db.$queryRaw<{ ownerId: string; n: number }[]>`
      SELECT l."ownerId", count(*)::int AS "n" FROM "Lease" l JOIN "Agent" a ON a."id" = l."ownerId"
      WHERE l."status" = 'active' AND l."expiresAt" > ${at} AND a."workspaceId" = ${workspaceId} GROUP BY l."ownerId"`,
  ]);
  const byLane = { claimed: 0, running: 0, validating: 0 };
  for (const r of lanes) byLane[r.state] = r.n;
  return { lanes: byLane, agents: new Map(agents.map((r) => [r.ownerId, r.n])) };
}

const ASK = "a workspace admin can raise it on the board (WIP limits)";

/**
 * Why a claim by this agent would go past a WIP limit, in words naming the limit and who to ask, or null. `todo` is
 * the todo the claim would take, when known: its own place in a lane and its own lease do not count against it.
 */
export function wipRefusalOf(limits: ClaimLimits, counts: WipCounts, agentId: string, todo?: { state: string; heldBy: string | null }): string | null {
  const held = (counts.agents.get(agentId) ?? 0) - (todo?.heldBy === agentId ? 1 : 0);
  if (limits.perAgent !== null && held >= limits.perAgent) {
    return `WIP limit reached: ${agentId} holds ${held} ${held === 1 ? "todo" : "todos"} and one phone may hold ${limits.perAgent} at once; it claims again when one of them finishes (${ASK}).`;
  }
  for (const lane of WIP_LANES) {
    const limit = limits[lane];
    const others = counts.lanes[lane] - (todo?.state === lane ? 1 : 0);
    if (limit !== null && others >= limit) {
      return `WIP limit reached: ${others} ${others === 1 ? "todo is" : "todos are"} ${lane} in the workspace and its limit is ${limit}; the claim waits until one leaves that lane (${ASK}).`;
    }
  }
  return null;
}

/** A named claim's check, inside its transaction after claimLimitsOf locked the limits: WIP_LIMIT refusal or nothing. */
export async function refuseOverWipLimit(tx: Tx, limits: ClaimLimits, agentId: string, todo: { id: string; state: string; goalId: string }, at: Date): Promise<void> {
  const [goal, lease] = await Promise.all([
    tx.goal.findUniqueOrThrow({ where: { id: todo.goalId }, select: { workspaceId: true } }),
    tx.lease.findFirst({ where: { todoId: todo.id, status: "active", expiresAt: { gt: at } }, select: { ownerId: true } }),
  ]);
  const why = wipRefusalOf(limits, await wipCounts(tx, goal.workspaceId, at), agentId, { state: todo.state, heldBy: lease?.ownerId ?? null });
  if (why) throw new StateError("PRECONDITION_FAILED", why, { refusal: "wip_limit", todoId: todo.id });
}
