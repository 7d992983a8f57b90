// A workspace and its first admin, in one transaction (the setup link's account, or an admin creating another).
import { z } from "zod";
import type { Membership, Workspace } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, ShortText } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

export const CreateWorkspaceInput = z.object({
  id: Id.optional(),
  name: ShortText,
  /** The person ("user".id) who becomes the workspace's first admin. */
  adminUserId: Id,
});
export type CreateWorkspaceInput = z.input<typeof CreateWorkspaceInput>;

export async function createWorkspace(db: DbOrTx, raw: CreateWorkspaceInput, ctx?: OperatorContext): Promise<{ workspace: Workspace; membership: Membership }> {
  const i = parseInput(CreateWorkspaceInput, raw, "workspace.create");
  return inTx(db, async (tx) => {
    const workspace = await tx.workspace.create({ data: { id: i.id ?? randomId("ws"), name: i.name } });
    const membership = await tx.membership.create({ data: { id: randomId("mem"), workspaceId: workspace.id, userId: i.adminUserId, role: "admin" } });
    await appendEvent(tx, { operator: "workspace.create", actor: actorOf(ctx, i.adminUserId), subjectId: workspace.id, workspaceId: workspace.id, payload: { name: workspace.name, adminUserId: i.adminUserId } }, ctx);
    return { workspace, membership };
  });
}
