-- The step row says what it holds: "Step"."observation" (the step's outcome and timings, not an observation) is
-- "Step"."outcome", and "Step"."screenSha256" goes — a step's screenshot is its observation evidence's blob, the
-- one place it is kept (migration step_screenshot_in_observation). A step row still naming a screenshot (written
-- after that migration by an older tool) hands it to its observation first, exactly as that migration does:
--  1. the step's first observation without a blob names it, when no observation of the step has a blob;
--  2. a step still without an observation naming it gets one, stamped just before the step's first evidence, with
--     the data of the observation the replay read before (none: {}) and the todo of the step's other evidence.
-- No Event: nothing new is recorded, the step's own fact moved. A screenshot whose blob is gone is dropped.
UPDATE "Evidence" e SET "blobSha256" = s."screenSha256"
FROM "Step" s
WHERE s."screenSha256" IS NOT NULL
  AND EXISTS (SELECT 1 FROM "Blob" b WHERE b."sha256" = s."screenSha256")
  AND NOT EXISTS (SELECT 1 FROM "Evidence" o WHERE o."runId" = s."runId" AND o."stepIndex" = s."index" AND o."kind" = 'observation' AND o."blobSha256" IS NOT NULL)
  AND e."id" = (
    SELECT o."id" FROM "Evidence" o
    WHERE o."runId" = s."runId" AND o."stepIndex" = s."index" AND o."kind" = 'observation'
    ORDER BY o."createdAt", o."id" LIMIT 1
  );

INSERT INTO "Evidence" ("id", "goalId", "todoId", "runId", "stepIndex", "kind", "summary", "data", "blobSha256", "agentId", "workspaceId", "idempotencyKey", "createdAt")
SELECT
  'ev_' || substr(md5(s."id" || ':screen'), 1, 20),
  r."goalId",
  (SELECT e."todoId" FROM "Evidence" e WHERE e."runId" = s."runId" AND e."stepIndex" = s."index" AND e."todoId" IS NOT NULL ORDER BY e."createdAt" LIMIT 1),
  s."runId",
  s."index",
  'observation',
  'the step''s screenshot',
  COALESCE((
    SELECT e."data" FROM "Evidence" e
    WHERE e."runId" = s."runId" AND e."stepIndex" = s."index" AND e."kind" = 'observation'
    ORDER BY (e."blobSha256" IS NULL), e."createdAt", e."id" LIMIT 1
  ), '{}'::jsonb),
  s."screenSha256",
  r."agentId",
  g."workspaceId",
  s."runId" || ':' || s."index" || ':screen',
  LEAST(s."createdAt", (SELECT min(e."createdAt") - interval '1 millisecond' FROM "Evidence" e WHERE e."runId" = s."runId" AND e."stepIndex" = s."index"))
FROM "Step" s
JOIN "Run" r ON r."id" = s."runId"
JOIN "Goal" g ON g."id" = r."goalId"
WHERE s."screenSha256" IS NOT NULL
  AND EXISTS (SELECT 1 FROM "Blob" b WHERE b."sha256" = s."screenSha256")
  AND NOT EXISTS (
    SELECT 1 FROM "Evidence" e
    WHERE e."runId" = s."runId" AND e."stepIndex" = s."index" AND e."kind" = 'observation' AND e."blobSha256" = s."screenSha256"
  )
ON CONFLICT ("workspaceId", "idempotencyKey") DO NOTHING;

DROP INDEX IF EXISTS "Step_screenSha256_idx";
ALTER TABLE "Step" DROP COLUMN "screenSha256";
ALTER TABLE "Step" RENAME COLUMN "observation" TO "outcome";
