-- Policy rules per workspace: the permission checkpoint's rules as data (extra words per category, app
-- categories, always-ask and never-ask lists). Append-only: every save is a new version, so a decision's
-- recorded policy version always names the rules it was made under.
CREATE TABLE "PolicyRules" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "rules" JSONB NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PolicyRules_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "PolicyRules_version_check" CHECK ("version" >= 1)
);

CREATE UNIQUE INDEX "PolicyRules_workspaceId_version_key" ON "PolicyRules"("workspaceId", "version");

ALTER TABLE "PolicyRules" ADD CONSTRAINT "PolicyRules_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Versions are never rewritten.
CREATE FUNCTION "policy_rules_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'PolicyRules rows are append-only: save a new version instead of changing version %', OLD."version";
END $$;
CREATE TRIGGER "PolicyRules_append_only" BEFORE UPDATE ON "PolicyRules" FOR EACH ROW EXECUTE FUNCTION "policy_rules_append_only"();
