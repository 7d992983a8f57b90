// expireGates: every open gate whose expiry has passed, expired or escalated (as its approval rule says) one by one
// (each its own transaction and Event, through expireGate), so a gate nobody answered in time stops holding its
// todo or goes to the admins. The API's reaper runs it on its periodic pass.
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { currentTime, type DbOrTx, type OperatorContext } from "../operator.ts";
import { expireGate } from "./expire-gate.ts";
import { StateError } from "../../domain/errors.ts";

export const ExpireGatesInput = z.object({ limit: z.number().int().min(1).max(500).default(100) });
export type ExpireGatesInput = z.input<typeof ExpireGatesInput>;

export async function expireGates(db: DbOrTx, raw: ExpireGatesInput = {}, ctx?: OperatorContext): Promise<{ gateIds: string[]; escalatedGateIds: string[] }> {
  const i = parseInput(ExpireGatesInput, raw, "gate.expireDue");
  const now = await currentTime(db, ctx);
  const due = await db.gate.findMany({ where: { status: "open", expiresAt: { lte: now } }, orderBy: [{ expiresAt: "asc" }, { id: "asc" }], take: i.limit, select: { id: true } });
  const gateIds: string[] = [];
  const escalatedGateIds: string[] = [];
  for (const g of due) {
    try {
      const after = await expireGate(db, { gateId: g.id }, ctx);
      (after.status === "expired" ? gateIds : escalatedGateIds).push(g.id);
    } catch (e) {
      // Answered between the scan and the expiry: the answer stands.
      if (!(e instanceof StateError && e.code === "CONFLICT")) throw e;
    }
  }
  return { gateIds, escalatedGateIds };
}
