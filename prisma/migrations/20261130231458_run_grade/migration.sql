-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "grade" TEXT,
ADD COLUMN     "gradeNote" TEXT,
ADD COLUMN     "gradedAt" TIMESTAMPTZ(3),
ADD COLUMN     "gradedBy" TEXT;

