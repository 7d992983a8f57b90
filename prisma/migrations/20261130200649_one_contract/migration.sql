-- CreateEnum
CREATE TYPE "TodoKind" AS ENUM ('executor', 'host');

-- CreateEnum
CREATE TYPE "AgentKind" AS ENUM ('browser', 'headless');

-- CreateEnum
CREATE TYPE "TurnResultKind" AS ENUM ('validated_progress', 'validated_completion', 'repair_required', 'replan_required', 'user_action_required', 'wait', 'host_failure', 'validation_failed', 'writeback_failed', 'quota_spend_failed');

-- AlterTable (hand-edited: the free-text kind maps onto the enum; a browser tab is "browser", anything else "headless")
ALTER TABLE "Agent" ALTER COLUMN "kind" TYPE "AgentKind"
  USING (CASE WHEN "kind" IN ('browser-tab', 'browser') THEN 'browser' ELSE 'headless' END)::"AgentKind";

-- AlterTable (hand-edited: the runtime kept a todo's kind in values["@kind"]; it moves to the column)
ALTER TABLE "Todo" ADD COLUMN     "kind" "TodoKind" NOT NULL DEFAULT 'executor';
UPDATE "Todo" SET "kind" = 'host' WHERE "values"->>'@kind' = 'host';
UPDATE "Todo" SET "values" = "values" - '@kind' WHERE "values" ? '@kind';

-- AlterTable (hand-edited: a rename keeps every lease's fencing key)
ALTER TABLE "Lease" RENAME COLUMN "idempotencyKey" TO "leaseKey";
ALTER INDEX "Lease_idempotencyKey_key" RENAME TO "Lease_leaseKey_key";

-- AlterTable
ALTER TABLE "Gate" ADD COLUMN     "idempotencyKey" TEXT;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "endReason" TEXT;

-- CreateTable
CREATE TABLE "Turn" (
    "id" TEXT NOT NULL,
    "goalId" TEXT NOT NULL,
    "todoId" TEXT NOT NULL,
    "runId" TEXT,
    "agentId" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "kind" "TurnResultKind" NOT NULL,
    "summary" TEXT NOT NULL,
    "values" JSONB NOT NULL DEFAULT '{}',
    "transitions" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Turn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Replan" (
    "id" TEXT NOT NULL,
    "goalId" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "ops" JSONB NOT NULL,
    "result" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Replan_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Turn_idempotencyKey_key" ON "Turn"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Turn_todoId_createdAt_idx" ON "Turn"("todoId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Replan_idempotencyKey_key" ON "Replan"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Replan_goalId_createdAt_idx" ON "Replan"("goalId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Gate_idempotencyKey_key" ON "Gate"("idempotencyKey");

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_todoId_fkey" FOREIGN KEY ("todoId") REFERENCES "Todo"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Replan" ADD CONSTRAINT "Replan_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

