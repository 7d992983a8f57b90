-- AlterTable
ALTER TABLE "AgentToken" ADD COLUMN     "revokedReason" TEXT;

-- Tokens whose issuer is no longer a member of the token's workspace end with that membership.
UPDATE "AgentToken" t SET "revokedAt" = now(), "revokedReason" = 'issuer_removed'
WHERE t."revokedAt" IS NULL
  AND NOT EXISTS (SELECT 1 FROM "Membership" m WHERE m."workspaceId" = t."workspaceId" AND m."userId" = t."issuedBy");
UPDATE "AgentToken" SET "revokedReason" = 'revoked' WHERE "revokedAt" IS NOT NULL AND "revokedReason" IS NULL;
