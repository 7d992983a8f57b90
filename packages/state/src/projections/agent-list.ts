// The workspace's agents as the board shows them: who is alive (last heartbeat), what it is (a browser tab or a
// headless worker, its phone) and how many todos it holds now. Read-only.
import { z } from "zod";
import { parseInput } from "../domain/input.ts";
import { pageOf, PageFields, type Page } from "../domain/page.ts";
import { Id } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";
import { cursorOf, keysetPage, pageOrder } from "./page-query.ts";

/** A page of the agents seen in the last `withinMs` (default a day), newest registered first; the cursor is opaque. */
export const AgentListInput = z.object({ workspaceId: Id, withinMs: z.number().int().min(1).max(366 * 24 * 3600 * 1000).optional(), ...PageFields });
export type AgentListInput = z.input<typeof AgentListInput>;

export interface AgentListItem {
  id: string;
  name: string;
  kind: string;
  capabilities: string[];
  /** The phone it drives, as it registered it (serial, model), when it has one. */
  device: { serial: string; model: string } | null;
  heartbeatAt: Date;
  /** Unexpired leases it holds. */
  holding: number;
}

// Not by heartbeat: every heartbeat would move an agent, and a reader paging on would skip or repeat it.
const AGENT_ORDER = pageOrder(["createdAt", "desc", Date], ["id", "asc", String]);

export async function agentList(db: DbOrTx, raw: AgentListInput): Promise<Page<AgentListItem>> {
  const i = parseInput(AgentListInput, raw, "agent.list");
  const since = new Date(Date.now() - (i.withinMs ?? 86_400_000));
  const agents = await db.agent.findMany({
    ...keysetPage(AGENT_ORDER, i, { workspaceId: i.workspaceId, heartbeatAt: { gte: since } }),
    select: { id: true, createdAt: true, name: true, kind: true, capabilities: true, meta: true, heartbeatAt: true, _count: { select: { leases: { where: { status: "active", expiresAt: { gt: new Date() } } } } } },
  });
  const page = pageOf(agents, i.limit, cursorOf(AGENT_ORDER));
  return { items: page.items.map(({ meta, _count, createdAt: _c, ...a }) => ({ ...a, device: deviceOf(meta), holding: _count.leases })), nextCursor: page.nextCursor };
}

function deviceOf(meta: unknown): AgentListItem["device"] {
  const d = (meta as { device?: { serial?: unknown; model?: unknown } } | null)?.device;
  return d && typeof d.serial === "string" && typeof d.model === "string" ? { serial: d.serial, model: d.model } : null;
}
