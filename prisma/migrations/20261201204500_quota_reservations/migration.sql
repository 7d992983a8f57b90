-- CreateTable
CREATE TABLE "QuotaReservation" (
    "id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "goalId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "todoId" TEXT,
    "runId" TEXT,
    "tokens" INTEGER NOT NULL,
    "microUsd" BIGINT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "QuotaReservation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "QuotaReservation_key_key" ON "QuotaReservation"("key");

-- CreateIndex
CREATE INDEX "QuotaReservation_goalId_expiresAt_idx" ON "QuotaReservation"("goalId", "expiresAt");

-- CreateIndex
CREATE INDEX "QuotaReservation_agentId_expiresAt_idx" ON "QuotaReservation"("agentId", "expiresAt");

-- AddForeignKey
ALTER TABLE "QuotaReservation" ADD CONSTRAINT "QuotaReservation_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;
