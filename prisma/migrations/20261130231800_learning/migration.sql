-- Learning: skills distilled from runs, deeplink shortcuts of app versions, lessons per app (issue 14).
-- CreateTable
CREATE TABLE "Skill" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "app" TEXT NOT NULL,
    "appVersion" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "goal" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'candidate',
    "version" INTEGER NOT NULL DEFAULT 1,
    "runId" TEXT NOT NULL,
    "successes" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Skill_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Shortcut" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "app" TEXT NOT NULL,
    "appVersion" TEXT NOT NULL,
    "uri" TEXT NOT NULL,
    "activity" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'discovered',
    "reason" TEXT,
    "validatedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Shortcut_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Lesson" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "app" TEXT NOT NULL,
    "goal" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Lesson_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Skill_workspaceId_app_appVersion_idx" ON "Skill"("workspaceId", "app", "appVersion");

-- CreateIndex
CREATE UNIQUE INDEX "Skill_workspaceId_app_appVersion_name_key" ON "Skill"("workspaceId", "app", "appVersion", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Shortcut_workspaceId_app_appVersion_uri_key" ON "Shortcut"("workspaceId", "app", "appVersion", "uri");

-- CreateIndex
CREATE INDEX "Lesson_workspaceId_app_idx" ON "Lesson"("workspaceId", "app");

-- CreateIndex
CREATE UNIQUE INDEX "Lesson_workspaceId_app_text_key" ON "Lesson"("workspaceId", "app", "text");

-- AddForeignKey
ALTER TABLE "Skill" ADD CONSTRAINT "Skill_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Shortcut" ADD CONSTRAINT "Shortcut_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Lesson" ADD CONSTRAINT "Lesson_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
