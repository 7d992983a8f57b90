// A takeover gate as readers show it (the Attention page, the gate page, the runtime waiting on it): its run, the
// agent's typed ask, and who holds the phone now — names read once for all the gates shown.
import type { Gate } from "../generated/prisma/client.ts";
import type { TakeoverReason } from "../domain/gate.ts";
import type { DbOrTx } from "../services/operator.ts";

/** null for every gate but a takeover. `reason` null: a person took over unasked; `takenBy` null: nobody took it yet
 * (the agent waits for a person). */
export interface TakeoverView {
  runId: string | null;
  reason: TakeoverReason | null;
  takenBy: { id: string; name: string } | null;
  takenAt: Date | null;
}

export async function takeoverViewsOf(db: DbOrTx, gates: Pick<Gate, "id" | "kind" | "runId" | "takeoverReason" | "takenBy" | "takenAt">[]): Promise<Map<string, TakeoverView | null>> {
  const takers = [...new Set(gates.flatMap((g) => (g.kind === "takeover" && g.takenBy ? [g.takenBy] : [])))];
  const users = takers.length ? await db.authUser.findMany({ where: { id: { in: takers } }, select: { id: true, name: true } }) : [];
  const nameOf = new Map(users.map((u) => [u.id, u.name]));
  return new Map(
    gates.map((g) => [
      g.id,
      g.kind === "takeover"
        ? { runId: g.runId, reason: (g.takeoverReason as TakeoverReason | null) ?? null, takenBy: g.takenBy ? { id: g.takenBy, name: nameOf.get(g.takenBy) ?? g.takenBy } : null, takenAt: g.takenAt }
        : null,
    ]),
  );
}
