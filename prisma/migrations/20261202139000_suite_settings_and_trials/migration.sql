-- Reproducible suites: a suite run records the settings its figures depend on (per role the model, its adapter
-- and version, its sampling settings; the prompts' fingerprint) and how many trials each task and seed had; an
-- attempt says which trial it was. Runs recorded before have one trial and no recorded settings ({}).
ALTER TABLE "SuiteRun" ADD COLUMN "trials" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "SuiteRun" ADD COLUMN "settings" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "SuiteAttempt" ADD COLUMN "trial" INTEGER NOT NULL DEFAULT 1;

DROP INDEX "SuiteAttempt_suiteRunId_taskId_seed_key";
CREATE UNIQUE INDEX "SuiteAttempt_suiteRunId_taskId_seed_trial_key" ON "SuiteAttempt"("suiteRunId", "taskId", "seed", "trial");
