-- Model settings name the model adapter each role's model speaks ({role: {id, version}}); settings saved before
-- name none, so every role speaks the product's own language (phoneloop), as it did.
ALTER TABLE "ModelSettings" ADD COLUMN "adapters" JSONB NOT NULL DEFAULT '{}';
