-- CreateIndex
CREATE INDEX "WorkspaceBlob_sha256_idx" ON "WorkspaceBlob"("sha256");

