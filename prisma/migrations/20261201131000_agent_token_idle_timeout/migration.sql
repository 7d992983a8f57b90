-- AlterTable
ALTER TABLE "AgentToken" ADD COLUMN     "idleTimeoutMs" INTEGER;
