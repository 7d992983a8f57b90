-- The gate is the core's: a gate stores what it is (its kind: approval or question), the permission tier that
-- opened it, the action it asks about and the policy decision behind it; opening one blocks its todo in the same
-- transaction (gate.open). The attempt limit is the core's too, carried on each todo for the runtime to read.
CREATE TYPE "GateKind" AS ENUM ('approval', 'question');

ALTER TABLE "Gate" ADD COLUMN "kind" "GateKind" NOT NULL DEFAULT 'question',
ADD COLUMN "tier" TEXT,
ADD COLUMN "action" JSONB,
ADD COLUMN "policy" JSONB;

-- Gates opened before this migration get their kind by the rule the web app guessed it with: a gate whose options
-- are all "approve" or "deny" asks for an approval; any other option makes it a question. A gate without options
-- is a question (the runtime opened every approval with the options approve and deny; the web offered an answer
-- in words for one without options).
UPDATE "Gate" SET "kind" = 'approval'
WHERE cardinality("options") > 0 AND "options" <@ ARRAY['approve', 'deny']::text[];

ALTER TABLE "Todo" ADD COLUMN "maxAttempts" INTEGER NOT NULL DEFAULT 5;
