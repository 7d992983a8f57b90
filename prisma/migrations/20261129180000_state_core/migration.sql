-- CreateEnum
CREATE TYPE "GoalStatus" AS ENUM ('active', 'paused', 'cancelled', 'completed');

-- CreateEnum
CREATE TYPE "TodoState" AS ENUM ('pending', 'claimed', 'running', 'validating', 'done', 'failed', 'blocked', 'superseded');

-- CreateEnum
CREATE TYPE "LeaseStatus" AS ENUM ('active', 'released', 'expired', 'transferred');

-- CreateEnum
CREATE TYPE "GateStatus" AS ENUM ('open', 'approved', 'denied', 'answered', 'expired');

-- CreateEnum
CREATE TYPE "EvidenceKind" AS ENUM ('observation', 'action', 'anomaly', 'validation', 'model_call', 'summary', 'gate_decision', 'handoff', 'checkpoint');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('running', 'completed', 'partial', 'blocked', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "QuotaScope" AS ENUM ('goal', 'agent');

-- CreateEnum
CREATE TYPE "MemberRole" AS ENUM ('owner', 'reviewer', 'operator', 'viewer');

-- CreateTable
CREATE TABLE "Member" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" "MemberRole" NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Member_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "capabilities" TEXT[],
    "meta" JSONB NOT NULL DEFAULT '{}',
    "heartbeatAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Goal" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "objective" TEXT NOT NULL,
    "bounds" TEXT[],
    "nonGoals" TEXT[],
    "acceptance" TEXT[],
    "status" "GoalStatus" NOT NULL DEFAULT 'active',
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Goal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Todo" (
    "id" TEXT NOT NULL,
    "goalId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "appHint" TEXT,
    "requiredCapabilities" TEXT[],
    "inputs" TEXT[],
    "values" JSONB NOT NULL DEFAULT '{}',
    "state" "TodoState" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastResult" TEXT,
    "reason" TEXT,
    "supersededById" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Todo_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Lease" (
    "id" TEXT NOT NULL,
    "todoId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "status" "LeaseStatus" NOT NULL DEFAULT 'active',
    "ttlMs" INTEGER NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "epoch" INTEGER NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Lease_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Gate" (
    "id" TEXT NOT NULL,
    "goalId" TEXT NOT NULL,
    "todoId" TEXT,
    "runId" TEXT,
    "question" TEXT NOT NULL,
    "options" TEXT[],
    "evidenceIds" TEXT[],
    "answerRoles" "MemberRole"[],
    "status" "GateStatus" NOT NULL DEFAULT 'open',
    "decision" TEXT,
    "answer" TEXT,
    "rationale" TEXT,
    "resolvedBy" TEXT,
    "resolvedAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Gate_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Evidence" (
    "id" TEXT NOT NULL,
    "goalId" TEXT NOT NULL,
    "todoId" TEXT,
    "runId" TEXT,
    "stepIndex" INTEGER,
    "kind" "EvidenceKind" NOT NULL,
    "summary" TEXT NOT NULL,
    "data" JSONB NOT NULL DEFAULT '{}',
    "blobSha256" TEXT,
    "agentId" TEXT,
    "idempotencyKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Evidence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Blob" (
    "sha256" TEXT NOT NULL,
    "mime" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "bytes" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Blob_pkey" PRIMARY KEY ("sha256")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "goalId" TEXT NOT NULL,
    "todoId" TEXT,
    "agentId" TEXT NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'running',
    "checkpoint" JSONB NOT NULL DEFAULT '{}',
    "summary" TEXT,
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Step" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "node" TEXT NOT NULL,
    "action" JSONB,
    "observation" JSONB,
    "screenSha256" TEXT,
    "anomalies" TEXT[],
    "tokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Step_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuotaPolicy" (
    "id" TEXT NOT NULL,
    "scope" "QuotaScope" NOT NULL,
    "goalId" TEXT,
    "agentId" TEXT,
    "windowMs" INTEGER NOT NULL,
    "maxSteps" INTEGER,
    "maxTokens" INTEGER,
    "maxMicroUsd" BIGINT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuotaPolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuotaSpend" (
    "id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "goalId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "steps" INTEGER NOT NULL,
    "tokens" INTEGER NOT NULL,
    "microUsd" BIGINT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuotaSpend_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Event" (
    "id" BIGSERIAL NOT NULL,
    "goalId" TEXT,
    "operator" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Todo_goalId_state_position_idx" ON "Todo"("goalId", "state", "position");

-- CreateIndex
CREATE INDEX "Todo_state_position_idx" ON "Todo"("state", "position");

-- CreateIndex
CREATE UNIQUE INDEX "Lease_idempotencyKey_key" ON "Lease"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Lease_todoId_status_idx" ON "Lease"("todoId", "status");

-- CreateIndex
CREATE INDEX "Lease_ownerId_status_idx" ON "Lease"("ownerId", "status");

-- CreateIndex
CREATE INDEX "Gate_status_createdAt_idx" ON "Gate"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Gate_goalId_status_idx" ON "Gate"("goalId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "Evidence_idempotencyKey_key" ON "Evidence"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Evidence_goalId_createdAt_idx" ON "Evidence"("goalId", "createdAt");

-- CreateIndex
CREATE INDEX "Evidence_todoId_createdAt_idx" ON "Evidence"("todoId", "createdAt");

-- CreateIndex
CREATE INDEX "Evidence_runId_stepIndex_idx" ON "Evidence"("runId", "stepIndex");

-- CreateIndex
CREATE INDEX "Run_goalId_startedAt_idx" ON "Run"("goalId", "startedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Step_runId_index_key" ON "Step"("runId", "index");

-- CreateIndex
CREATE UNIQUE INDEX "QuotaPolicy_scope_goalId_agentId_key" ON "QuotaPolicy"("scope", "goalId", "agentId");

-- CreateIndex
CREATE UNIQUE INDEX "QuotaSpend_key_key" ON "QuotaSpend"("key");

-- CreateIndex
CREATE INDEX "QuotaSpend_goalId_createdAt_idx" ON "QuotaSpend"("goalId", "createdAt");

-- CreateIndex
CREATE INDEX "QuotaSpend_agentId_createdAt_idx" ON "QuotaSpend"("agentId", "createdAt");

-- CreateIndex
CREATE INDEX "Event_goalId_id_idx" ON "Event"("goalId", "id");

-- AddForeignKey
ALTER TABLE "Todo" ADD CONSTRAINT "Todo_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Lease" ADD CONSTRAINT "Lease_todoId_fkey" FOREIGN KEY ("todoId") REFERENCES "Todo"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Lease" ADD CONSTRAINT "Lease_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "Agent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Gate" ADD CONSTRAINT "Gate_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Gate" ADD CONSTRAINT "Gate_todoId_fkey" FOREIGN KEY ("todoId") REFERENCES "Todo"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Evidence" ADD CONSTRAINT "Evidence_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Evidence" ADD CONSTRAINT "Evidence_blobSha256_fkey" FOREIGN KEY ("blobSha256") REFERENCES "Blob"("sha256") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Step" ADD CONSTRAINT "Step_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuotaPolicy" ADD CONSTRAINT "QuotaPolicy_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuotaSpend" ADD CONSTRAINT "QuotaSpend_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written (Prisma's schema language cannot express these):
-- At most one active lease per todo: two racing claims cannot both hold it.
CREATE UNIQUE INDEX "Lease_one_active_per_todo" ON "Lease"("todoId") WHERE "status" = 'active';

-- Every appended Event is announced on one channel, so any API process can stream it (LISTEN phoneloop_events).
CREATE FUNCTION "phoneloop_notify_event"() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('phoneloop_events', NEW."id"::text);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "Event_notify" AFTER INSERT ON "Event" FOR EACH ROW EXECUTE FUNCTION "phoneloop_notify_event"();
