-- Spend keys are the workspace's, as the other idempotency keys are (migration workspace_idempotency_keys): a
-- spend key built from a run id and sent first by another workspace's agent no longer makes the run's spend a
-- CONFLICT. A settled model call's spend is still found by its key alone (its key is the call's own, random).
ALTER TABLE "QuotaSpend" ADD COLUMN "workspaceId" TEXT NOT NULL DEFAULT '';
UPDATE "QuotaSpend" x SET "workspaceId" = g."workspaceId" FROM "Goal" g WHERE g."id" = x."goalId";
CREATE TRIGGER "QuotaSpend_workspaceId" BEFORE INSERT ON "QuotaSpend" FOR EACH ROW EXECUTE FUNCTION phoneloop_workspace_of_goal();

-- DropIndex
DROP INDEX "QuotaSpend_key_key";

-- CreateIndex
CREATE UNIQUE INDEX "QuotaSpend_workspaceId_key_key" ON "QuotaSpend"("workspaceId", "key");
CREATE INDEX "QuotaSpend_key_idx" ON "QuotaSpend"("key");
