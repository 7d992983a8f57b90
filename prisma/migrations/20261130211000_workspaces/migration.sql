-- Workspaces, members with roles, agent tokens and shares (hand-written in Prisma's layout). Every goal, agent,
-- blob and share belongs to one workspace. Rows that exist already move into one workspace, "Default"; the old
-- members become people ("user" rows, created by the accounts migration) who are members of it, their roles
-- renamed (owner -> admin, reviewer -> approver). They sign in after an admin sends them an invite link.

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('admin', 'approver', 'operator', 'viewer');

-- CreateTable
CREATE TABLE "Workspace" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Workspace_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Membership" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Membership_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentToken" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "agentId" TEXT,
    "issuedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "AgentToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Share" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Share_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkspaceBlob" (
    "workspaceId" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WorkspaceBlob_pkey" PRIMARY KEY ("workspaceId","sha256")
);

-- Existing rows need a workspace: one "Default" workspace when there is anything to put in it.
INSERT INTO "Workspace" ("id", "name")
SELECT 'ws_default', 'Default'
WHERE EXISTS (SELECT 1 FROM "Goal") OR EXISTS (SELECT 1 FROM "Agent") OR EXISTS (SELECT 1 FROM "Member") OR EXISTS (SELECT 1 FROM "Blob");

-- Old members become people (no password: an admin's invite link lets them in) and members of that workspace.
INSERT INTO "user" ("id", "name", "email", "emailVerified", "createdAt", "updatedAt")
SELECT m."id", m."name", m."id" || '@members.phoneloop.invalid', false, m."createdAt", m."createdAt" FROM "Member" m
ON CONFLICT DO NOTHING;
INSERT INTO "Membership" ("id", "workspaceId", "userId", "role", "createdAt")
SELECT 'mem_' || m."id", 'ws_default', m."id",
       (CASE m."role" WHEN 'owner' THEN 'admin' WHEN 'reviewer' THEN 'approver' ELSE m."role"::text END)::"Role", m."createdAt"
FROM "Member" m;

-- AlterTable
ALTER TABLE "Goal" ADD COLUMN "workspaceId" TEXT;
UPDATE "Goal" SET "workspaceId" = 'ws_default';
ALTER TABLE "Goal" ALTER COLUMN "workspaceId" SET NOT NULL;

-- AlterTable
ALTER TABLE "Agent" ADD COLUMN "workspaceId" TEXT;
UPDATE "Agent" SET "workspaceId" = 'ws_default';
ALTER TABLE "Agent" ALTER COLUMN "workspaceId" SET NOT NULL;

-- Blobs stored so far were stored for the default workspace.
INSERT INTO "WorkspaceBlob" ("workspaceId", "sha256", "createdAt") SELECT 'ws_default', b."sha256", b."createdAt" FROM "Blob" b;

-- AlterTable: answer roles renamed the same way (the column now records the workspace's rule).
ALTER TABLE "Gate" ALTER COLUMN "answerRoles" TYPE "Role"[]
  USING array_replace(array_replace("answerRoles"::text[], 'owner', 'admin'), 'reviewer', 'approver')::"Role"[];

-- AlterTable
ALTER TABLE "Event" ADD COLUMN "workspaceId" TEXT;
UPDATE "Event" e SET "workspaceId" = g."workspaceId" FROM "Goal" g WHERE g."id" = e."goalId";
UPDATE "Event" SET "workspaceId" = 'ws_default' WHERE "workspaceId" IS NULL AND EXISTS (SELECT 1 FROM "Workspace" WHERE "id" = 'ws_default');

-- An event names its goal; its workspace follows from it (hot-path statements insert events without naming it).
CREATE FUNCTION phoneloop_event_workspace() RETURNS trigger AS $$
BEGIN
  IF NEW."workspaceId" IS NULL AND NEW."goalId" IS NOT NULL THEN
    SELECT "workspaceId" INTO NEW."workspaceId" FROM "Goal" WHERE "id" = NEW."goalId";
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "Event_workspace" BEFORE INSERT ON "Event" FOR EACH ROW EXECUTE FUNCTION phoneloop_event_workspace();

-- DropTable
DROP TABLE "Member";

-- DropEnum
DROP TYPE "MemberRole";

-- CreateIndex
CREATE INDEX "Membership_userId_idx" ON "Membership"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Membership_workspaceId_userId_key" ON "Membership"("workspaceId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "AgentToken_tokenHash_key" ON "AgentToken"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "AgentToken_agentId_key" ON "AgentToken"("agentId");

-- CreateIndex
CREATE INDEX "AgentToken_workspaceId_createdAt_idx" ON "AgentToken"("workspaceId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Share_tokenHash_key" ON "Share"("tokenHash");

-- CreateIndex
CREATE INDEX "Share_workspaceId_createdAt_idx" ON "Share"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Agent_workspaceId_idx" ON "Agent"("workspaceId");

-- CreateIndex
CREATE INDEX "Goal_workspaceId_createdAt_idx" ON "Goal"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Event_workspaceId_id_idx" ON "Event"("workspaceId", "id");

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey (hand-written: "user" is the accounts migration's table, outside the Prisma schema)
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentToken" ADD CONSTRAINT "AgentToken_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Share" ADD CONSTRAINT "Share_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Share" ADD CONSTRAINT "Share_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkspaceBlob" ADD CONSTRAINT "WorkspaceBlob_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkspaceBlob" ADD CONSTRAINT "WorkspaceBlob_sha256_fkey" FOREIGN KEY ("sha256") REFERENCES "Blob"("sha256") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Goal" ADD CONSTRAINT "Goal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
