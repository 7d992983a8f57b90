-- Approval rules: per workspace and approval category, how many distinct approvers a gate needs, whether the run's
-- starter or the goal's creator may be one of them, a time-to-live and what its expiry does (deny or escalate).
-- A gate keeps the rule it opened under; each approver's decision is its own row. Gates opened before keep
-- today's behaviour (one approver, starter allowed, their expiry denies).
ALTER TABLE "Gate" ADD COLUMN "category" TEXT NOT NULL DEFAULT 'other',
ADD COLUMN "target" TEXT,
ADD COLUMN "approvalsNeeded" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN "starterMayApprove" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN "afterExpiry" TEXT NOT NULL DEFAULT 'deny',
ADD COLUMN "escalatedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "GateDecision" (
    "id" TEXT NOT NULL,
    "gateId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "answer" TEXT,
    "rationale" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GateDecision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApprovalRule" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "approvalsNeeded" INTEGER NOT NULL DEFAULT 1,
    "starterMayApprove" BOOLEAN NOT NULL DEFAULT true,
    "ttlMs" INTEGER,
    "afterExpiry" TEXT NOT NULL DEFAULT 'deny',
    "updatedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApprovalRule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Gate_workspaceId_status_category_target_idx" ON "Gate"("workspaceId", "status", "category", "target");

-- CreateIndex
CREATE UNIQUE INDEX "GateDecision_gateId_userId_key" ON "GateDecision"("gateId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "ApprovalRule_workspaceId_category_key" ON "ApprovalRule"("workspaceId", "category");

-- AddForeignKey
ALTER TABLE "GateDecision" ADD CONSTRAINT "GateDecision_gateId_fkey" FOREIGN KEY ("gateId") REFERENCES "Gate"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApprovalRule" ADD CONSTRAINT "ApprovalRule_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
