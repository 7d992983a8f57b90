// Bearer secrets (agent tokens, share links): 256 random bits, base64url, shown once; only their sha256 is stored,
// so a database leak reveals no usable token.
import { createHash, randomBytes } from "node:crypto";

export function newSecret(prefix: string): { token: string; hash: string } {
  const token = `${prefix}${randomBytes(32).toString("base64url")}`;
  return { token, hash: hashSecret(token) };
}

export function hashSecret(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
