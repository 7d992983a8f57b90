// The workspace's agents as the board shows them: who is alive (last heartbeat), what it is (a browser tab or a
// headless worker, its phone) and how many todos it holds now. Read-only.
import type { Db } from "@phoneloop/state";

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

/** Agents seen in the last `withinMs` (default a day), most recent heartbeat first, at most 100. */
export async function agentList(db: Db, input: { workspaceId: string; withinMs?: number }): Promise<AgentListItem[]> {
  const since = new Date(Date.now() - (input.withinMs ?? 86_400_000));
  const agents = await db.agent.findMany({
    where: { workspaceId: input.workspaceId, heartbeatAt: { gte: since } },
    orderBy: [{ heartbeatAt: "desc" }, { id: "asc" }],
    take: 100,
    select: { id: true, name: true, kind: true, capabilities: true, meta: true, heartbeatAt: true, _count: { select: { leases: { where: { status: "active", expiresAt: { gt: new Date() } } } } } },
  });
  return agents.map(({ meta, _count, ...a }) => ({ ...a, device: deviceOf(meta), holding: _count.leases }));
}

function deviceOf(meta: unknown): AgentListItem["device"] {
  const d = (meta as { device?: { serial?: unknown; model?: unknown } } | null)?.device;
  return d && typeof d.serial === "string" && typeof d.model === "string" ? { serial: d.serial, model: d.model } : null;
}
