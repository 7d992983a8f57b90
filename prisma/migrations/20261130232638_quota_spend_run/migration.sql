-- AlterTable
ALTER TABLE "QuotaSpend" ADD COLUMN     "runId" TEXT;

-- CreateIndex
CREATE INDEX "QuotaSpend_runId_idx" ON "QuotaSpend"("runId");

