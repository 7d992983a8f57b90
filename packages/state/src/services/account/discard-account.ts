// An account made from a one-time link that could not be used after all (the link was used meanwhile, or the
// workspace or membership it was for could not be made) is deleted again, so the e-mail address stays free.
// better-auth made the account, but deletes one only at the person's own request (its delete-user route, which this
// API does not serve), so the core deletes the "user" row (its sessions and password go with it: ON DELETE
// CASCADE) and appends the Event.
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";

export const ACCOUNT_DISCARD_REASONS = ["link_used", "not_joined"] as const;

export const DiscardAccountInput = z.object({
  userId: Id,
  /** link_used: the link was used meanwhile; not_joined: the workspace or membership could not be made. */
  reason: z.enum(ACCOUNT_DISCARD_REASONS),
});
export type DiscardAccountInput = z.input<typeof DiscardAccountInput>;

/** Deletes the account; false when there was none (deleted meanwhile). */
export async function discardAccount(db: DbOrTx, raw: DiscardAccountInput, ctx?: OperatorContext): Promise<boolean> {
  const i = parseInput(DiscardAccountInput, raw, "account.discard");
  return inTx(db, async (tx) => {
    const n = await tx.$executeRaw`DELETE FROM "user" WHERE "id" = ${i.userId}`;
    if (n === 0) return false;
    await appendEvent(tx, { operator: "account.discard", actor: actorOf(ctx, undefined), subjectId: i.userId, payload: { reason: i.reason } }, ctx);
    return true;
  });
}
