-- AlterTable
ALTER TABLE "ModelSettings" ADD COLUMN     "roles" JSONB NOT NULL DEFAULT '{}';

