-- Lessons merged in the background per app: each lesson names every run it came from (a folded duplicate's runs
-- join the one kept), and says when the merge last saw it (null: added or edited since, its app is due a merge).
-- A lesson recorded before names its one run.
ALTER TABLE "Lesson" ADD COLUMN "runIds" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "Lesson" ADD COLUMN "mergedAt" TIMESTAMPTZ(3);
UPDATE "Lesson" SET "runIds" = ARRAY["runId"];
