-- Model settings per workspace: the OpenAI-compatible endpoint behind the model proxy, the model of each role
-- and prices. The API key is stored encrypted (AES-256-GCM, a key derived from PHONELOOP_SECRET_KEY) and never
-- leaves the API.
CREATE TABLE "ModelSettings" (
  "workspaceId" TEXT NOT NULL PRIMARY KEY REFERENCES "Workspace" ("id") ON DELETE CASCADE,
  "baseUrl" TEXT NOT NULL,
  "apiKeyEncrypted" TEXT NOT NULL,
  "models" JSONB NOT NULL DEFAULT '{}',
  "microUsdPerInputToken" DOUBLE PRECISION NOT NULL DEFAULT 0,
  "microUsdPerOutputToken" DOUBLE PRECISION NOT NULL DEFAULT 0,
  "timeoutMs" INTEGER NOT NULL DEFAULT 120000,
  "updatedBy" TEXT NOT NULL,
  "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
