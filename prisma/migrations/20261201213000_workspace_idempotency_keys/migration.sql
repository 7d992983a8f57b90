-- Idempotency keys are the workspace's: evidence, gates, turns and replans keep them unique per workspace (the
-- row's goal's), so another workspace's agent cannot take a key built from a run id, and a repeat is only ever
-- matched with a row of the caller's own workspace.

-- AlterTable: the goal's workspace on each row, filled in for the rows there are.
ALTER TABLE "Evidence" ADD COLUMN "workspaceId" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Gate" ADD COLUMN "workspaceId" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Turn" ADD COLUMN "workspaceId" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Replan" ADD COLUMN "workspaceId" TEXT NOT NULL DEFAULT '';
UPDATE "Evidence" x SET "workspaceId" = g."workspaceId" FROM "Goal" g WHERE g."id" = x."goalId";
UPDATE "Gate" x SET "workspaceId" = g."workspaceId" FROM "Goal" g WHERE g."id" = x."goalId";
UPDATE "Turn" x SET "workspaceId" = g."workspaceId" FROM "Goal" g WHERE g."id" = x."goalId";
UPDATE "Replan" x SET "workspaceId" = g."workspaceId" FROM "Goal" g WHERE g."id" = x."goalId";

-- A row's workspace is always its goal's, whatever the writer sent: set on insert (a goal never changes workspace).
-- A goal that does not exist leaves it as sent, and the goal's foreign key then refuses the row.
CREATE FUNCTION phoneloop_workspace_of_goal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."workspaceId" := COALESCE((SELECT g."workspaceId" FROM "Goal" g WHERE g."id" = NEW."goalId"), NEW."workspaceId");
  RETURN NEW;
END $$;
CREATE TRIGGER "Evidence_workspaceId" BEFORE INSERT ON "Evidence" FOR EACH ROW EXECUTE FUNCTION phoneloop_workspace_of_goal();
CREATE TRIGGER "Gate_workspaceId" BEFORE INSERT ON "Gate" FOR EACH ROW EXECUTE FUNCTION phoneloop_workspace_of_goal();
CREATE TRIGGER "Turn_workspaceId" BEFORE INSERT ON "Turn" FOR EACH ROW EXECUTE FUNCTION phoneloop_workspace_of_goal();
CREATE TRIGGER "Replan_workspaceId" BEFORE INSERT ON "Replan" FOR EACH ROW EXECUTE FUNCTION phoneloop_workspace_of_goal();

-- DropIndex
DROP INDEX "Evidence_idempotencyKey_key";
DROP INDEX "Gate_idempotencyKey_key";
DROP INDEX "Turn_idempotencyKey_key";
DROP INDEX "Replan_idempotencyKey_key";

-- CreateIndex
CREATE UNIQUE INDEX "Evidence_workspaceId_idempotencyKey_key" ON "Evidence"("workspaceId", "idempotencyKey");
CREATE UNIQUE INDEX "Gate_workspaceId_idempotencyKey_key" ON "Gate"("workspaceId", "idempotencyKey");
CREATE UNIQUE INDEX "Turn_workspaceId_idempotencyKey_key" ON "Turn"("workspaceId", "idempotencyKey");
CREATE UNIQUE INDEX "Replan_workspaceId_idempotencyKey_key" ON "Replan"("workspaceId", "idempotencyKey");
