// The board: lanes by todo state, one card per todo. A projection only — nothing here writes.
import { z } from "zod";
import type { Goal } from "../generated/prisma/client.ts";
import { StateError } from "../domain/errors.ts";
import { parseInput } from "../domain/input.ts";
import { Id } from "../domain/schemas.ts";
import type { GateKind } from "../domain/gate.ts";
import { TODO_STATES, type TodoState } from "../domain/todo-transitions.ts";
import { todoStatusOf, type TodoStatus } from "../domain/status.ts";
import type { RunStatus } from "../domain/run.ts";
import { currentTime, type DbOrTx, type OperatorContext } from "../services/operator.ts";
import { policyUsage, type Amounts, type PolicyUsage } from "../services/quota/usage.ts";
import { wipCounts, WIP_LANES, wipLimits, type WipLane, type WipLimitsView } from "../services/wip-limit/wip-limits.ts";
import { goalSpend, NOTHING_SPENT } from "./spend.ts";

const RUN_FIELDS = { id: true, status: true, agentId: true, endReason: true, startedAt: true, endedAt: true } as const;

export const BoardInput = z.object({ goalId: Id });
export type BoardInput = z.input<typeof BoardInput>;

export interface BoardCard {
  id: string;
  title: string;
  state: TodoState;
  status: TodoStatus;
  position: number;
  attempts: number;
  lastResult: string | null;
  owner: { agentId: string; name: string } | null;
  leaseExpiresAt: Date | null;
  /** Negative once the lease has expired (the todo is then reclaimable). */
  leaseMsLeft: number | null;
  /** The open gate on the todo: its question, kind (approval, question or takeover), options and who answers it. */
  openGate: { id: string; question: string; kind: GateKind; options: string[]; answerRoles: string[] } | null;
  latestEvidence: { summary: string; kind: string; at: Date } | null;
  /** The todo's newest screenshot (an image blob on its evidence), for the card's thumbnail. */
  latestScreenshot: { sha256: string; at: Date } | null;
  /** What was spent on this todo (every run's turns and model calls on it). */
  quotaUsed: Amounts;
  /** The newest run that recorded evidence on this todo, with its status (interrupted: its worker died). */
  latestRun: BoardRun | null;
}

export interface BoardRun {
  id: string;
  status: RunStatus;
  agentId: string;
  endReason: string | null;
  startedAt: Date;
  endedAt: Date | null;
  /** What the run spent: its turns' steps, its model calls' tokens and money. */
  spent: Amounts;
}

/** A count against a WIP limit: `atLimit` from count = limit (a claim into it waits), `over` past it (a lowered limit). */
export interface WipCount {
  count: number;
  limit: number | null;
  atLimit: boolean;
  over: boolean;
}

export interface Board {
  goal: Goal;
  /** `wip`: for the held lanes (claimed, running, validating), the todos in that lane across the goal's workspace and its WIP limit; null for the others. */
  lanes: { state: TodoState; cards: BoardCard[]; wip: WipCount | null }[];
  /** The workspace's WIP limits and each agent (phone) holding todos now, with how many against the per-phone limit. */
  wip: { limits: WipLimitsView; agents: ({ agentId: string; name: string } & Omit<WipCount, "over">)[] };
  quota: PolicyUsage[];
  /** What the goal spent in all (policies or not). */
  spent: Amounts;
  /** The goal's runs, newest first (at most 20). */
  runs: BoardRun[];
  at: Date;
}

export async function board(db: DbOrTx, raw: BoardInput, ctx?: OperatorContext): Promise<Board> {
  const i = parseInput(BoardInput, raw, "board");
  const goal = await db.goal.findUnique({ where: { id: i.goalId } });
  if (!goal) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
  const at = await currentTime(db, ctx);
  const [todos, leases, gates, evidence, screenshots, spends, quota, runs, runOfTodo, limits, counts] = await Promise.all([
    db.todo.findMany({ where: { goalId: goal.id }, orderBy: [{ position: "asc" }, { createdAt: "asc" }] }),
    db.lease.findMany({ where: { status: "active", todo: { goalId: goal.id } }, include: { owner: { select: { name: true } } } }),
    db.gate.findMany({ where: { goalId: goal.id, status: "open" }, orderBy: { createdAt: "asc" } }),
    db.$queryRaw<{ todoId: string; summary: string; kind: string; createdAt: Date }[]>`
      SELECT DISTINCT ON ("todoId") "todoId", "summary", "kind"::text AS "kind", "createdAt" FROM "Evidence"
      WHERE "goalId" = ${goal.id} AND "todoId" IS NOT NULL ORDER BY "todoId", "createdAt" DESC, "id" DESC`,
    db.$queryRaw<{ todoId: string; sha256: string; createdAt: Date }[]>`
      SELECT DISTINCT ON (e."todoId") e."todoId", e."blobSha256" AS "sha256", e."createdAt" FROM "Evidence" e
      JOIN "Blob" b ON b."sha256" = e."blobSha256" AND b."mime" LIKE 'image/%'
      WHERE e."goalId" = ${goal.id} AND e."todoId" IS NOT NULL ORDER BY e."todoId", e."createdAt" DESC, e."id" DESC`,
    goalSpend(db, goal.id),
    policyUsage(db, { goalId: goal.id, at }),
    db.run.findMany({ where: { goalId: goal.id }, orderBy: [{ startedAt: "desc" }, { id: "desc" }], take: 20, select: RUN_FIELDS }),
    db.$queryRaw<{ todoId: string; runId: string }[]>`
      SELECT DISTINCT ON ("todoId") "todoId", "runId" FROM "Evidence"
      WHERE "goalId" = ${goal.id} AND "todoId" IS NOT NULL AND "runId" IS NOT NULL ORDER BY "todoId", "createdAt" DESC, "id" DESC`,
    wipLimits(db, { workspaceId: goal.workspaceId }),
    wipCounts(db, goal.workspaceId, at),
  ]);
  const withSpend = <R extends { id: string }>(r: R): R & { spent: Amounts } => ({ ...r, spent: spends.byRun.get(r.id) ?? { ...NOTHING_SPENT } });
  const runBy = new Map(runs.map((r) => [r.id, withSpend(r)]));
  const older = [...new Set(runOfTodo.map((r) => r.runId))].filter((id) => !runBy.has(id));
  if (older.length) for (const r of await db.run.findMany({ where: { id: { in: older } }, select: RUN_FIELDS })) runBy.set(r.id, withSpend(r));
  const latestRunBy = new Map(runOfTodo.map((r) => [r.todoId, runBy.get(r.runId) ?? null]));
  const leaseBy = new Map(leases.map((l) => [l.todoId, l]));
  const gateBy = new Map<string, (typeof gates)[number]>();
  for (const g of gates) if (g.todoId && !gateBy.has(g.todoId)) gateBy.set(g.todoId, g);
  const evidenceBy = new Map(evidence.map((e) => [e.todoId, e]));
  const screenshotBy = new Map(screenshots.map((e) => [e.todoId, e]));
  const against = (count: number, limit: number | null) => ({ count, limit, atLimit: limit !== null && count >= limit, over: limit !== null && count > limit });
  const wipOf = (state: TodoState): WipCount | null => ((WIP_LANES as readonly TodoState[]).includes(state) ? against(counts.lanes[state as WipLane], limits[state as WipLane]) : null);
  const lanes = TODO_STATES.map((state) => ({ state, cards: [] as BoardCard[], wip: wipOf(state) }));
  const holders = counts.agents.size ? await db.agent.findMany({ where: { id: { in: [...counts.agents.keys()] } }, select: { id: true, name: true } }) : [];
  const agents = holders
    .map((a) => {
      const { over: _over, ...c } = against(counts.agents.get(a.id) ?? 0, limits.perAgent);
      return { agentId: a.id, name: a.name, ...c };
    })
    .sort((x, y) => x.name.localeCompare(y.name) || x.agentId.localeCompare(y.agentId));
  for (const t of todos) {
    const lease = leaseBy.get(t.id) ?? null;
    const gate = gateBy.get(t.id);
    const ev = evidenceBy.get(t.id);
    const shot = screenshotBy.get(t.id);
    lanes.find((l) => l.state === t.state)!.cards.push({
      id: t.id,
      title: t.title,
      state: t.state,
      status: todoStatusOf(t, lease),
      position: t.position,
      attempts: t.attempts,
      lastResult: t.lastResult,
      owner: lease ? { agentId: lease.ownerId, name: lease.owner.name } : null,
      leaseExpiresAt: lease?.expiresAt ?? null,
      leaseMsLeft: lease ? lease.expiresAt.getTime() - at.getTime() : null,
      openGate: gate ? { id: gate.id, question: gate.question, kind: gate.kind, options: gate.options, answerRoles: gate.answerRoles } : null,
      latestEvidence: ev ? { summary: ev.summary, kind: ev.kind, at: ev.createdAt } : null,
      latestScreenshot: shot ? { sha256: shot.sha256, at: shot.createdAt } : null,
      quotaUsed: spends.byTodo.get(t.id) ?? { ...NOTHING_SPENT },
      latestRun: latestRunBy.get(t.id) ?? null,
    });
  }
  return { goal, lanes, wip: { limits, agents }, quota, spent: spends.total, runs: runs.map((r) => runBy.get(r.id)!), at };
}
