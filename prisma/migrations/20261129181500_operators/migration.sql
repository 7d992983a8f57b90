-- AlterTable: the first migration missed this column, which schema.prisma already declares.
ALTER TABLE "Todo" ADD COLUMN     "outputs" TEXT[];

-- AlterTable
ALTER TABLE "QuotaSpend" ADD COLUMN     "todoId" TEXT;

-- CreateIndex
CREATE INDEX "QuotaSpend_todoId_idx" ON "QuotaSpend"("todoId");


-- Hand-written (Prisma's schema language cannot express these):
-- The composite unique index treats NULLs as distinct, so it cannot keep one policy per goal or per agent.
CREATE UNIQUE INDEX "QuotaPolicy_one_per_goal" ON "QuotaPolicy"("goalId") WHERE "scope" = 'goal';
CREATE UNIQUE INDEX "QuotaPolicy_one_per_agent" ON "QuotaPolicy"("agentId") WHERE "scope" = 'agent';
-- A policy names exactly the subject its scope says.
ALTER TABLE "QuotaPolicy" ADD CONSTRAINT "QuotaPolicy_scope_subject" CHECK (
  ("scope" = 'goal' AND "goalId" IS NOT NULL AND "agentId" IS NULL) OR
  ("scope" = 'agent' AND "agentId" IS NOT NULL AND "goalId" IS NULL));
-- Lease expiry sweeps and the attention queue look up active leases by expiry.
CREATE INDEX "Lease_active_expiresAt" ON "Lease"("expiresAt") WHERE "status" = 'active';
