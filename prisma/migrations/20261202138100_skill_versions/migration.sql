-- Each version of a skill's steps is kept (SkillVersion), so the Learning page shows what changed between them.
-- A skill saved before keeps its current version only: the earlier ones were replaced in place.
CREATE TABLE "SkillVersion" (
    "skillId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "body" JSONB NOT NULL,
    "runId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SkillVersion_pkey" PRIMARY KEY ("skillId","version")
);

ALTER TABLE "SkillVersion" ADD CONSTRAINT "SkillVersion_skillId_fkey" FOREIGN KEY ("skillId") REFERENCES "Skill"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "SkillVersion" ("skillId", "version", "body", "runId", "createdAt") SELECT "id", "version", "body", "runId", "updatedAt" FROM "Skill";
