-- CreateTable
CREATE TABLE "SuiteRun" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "modelProfile" TEXT NOT NULL,
    "tasks" TEXT NOT NULL,
    "scenarios" TEXT NOT NULL,
    "seeds" INTEGER NOT NULL,
    "perturbations" TEXT[],
    "status" TEXT NOT NULL DEFAULT 'running',
    "createdBy" TEXT NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMPTZ(3),

    CONSTRAINT "SuiteRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SuiteAttempt" (
    "id" TEXT NOT NULL,
    "suiteRunId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "seed" INTEGER NOT NULL,
    "runId" TEXT,
    "score" DOUBLE PRECISION NOT NULL,
    "reason" TEXT NOT NULL,
    "steps" INTEGER NOT NULL,
    "inputTokens" INTEGER NOT NULL,
    "outputTokens" INTEGER NOT NULL,
    "costMicroUsd" BIGINT NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SuiteAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SuiteRun_workspaceId_startedAt_idx" ON "SuiteRun"("workspaceId", "startedAt");

-- CreateIndex
CREATE INDEX "SuiteAttempt_runId_idx" ON "SuiteAttempt"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "SuiteAttempt_suiteRunId_taskId_seed_key" ON "SuiteAttempt"("suiteRunId", "taskId", "seed");

-- AddForeignKey
ALTER TABLE "SuiteRun" ADD CONSTRAINT "SuiteRun_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SuiteAttempt" ADD CONSTRAINT "SuiteAttempt_suiteRunId_fkey" FOREIGN KEY ("suiteRunId") REFERENCES "SuiteRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SuiteAttempt" ADD CONSTRAINT "SuiteAttempt_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

