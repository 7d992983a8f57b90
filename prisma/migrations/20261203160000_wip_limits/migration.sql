-- WIP limits: per workspace, how many todos may be claimed, running or validating at once across the workspace, and
-- how many one agent may hold at once (null: no limit). The claim reads this row (and, when it holds a limit, locks
-- it, so claims racing at a limit take turns) and refuses a claim that would go past one.
-- CreateTable
CREATE TABLE "WipLimits" (
    "workspaceId" TEXT NOT NULL,
    "claimed" INTEGER,
    "running" INTEGER,
    "validating" INTEGER,
    "perAgent" INTEGER,
    "updatedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WipLimits_pkey" PRIMARY KEY ("workspaceId")
);

-- AddForeignKey
ALTER TABLE "WipLimits" ADD CONSTRAINT "WipLimits_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
