// One secret from the environment (PHONELOOP_SECRET_KEY) yields a separate key per use, so the session-signing
// key and the key that encrypts model settings at rest are never the same bytes.
import { hkdfSync, randomBytes } from "node:crypto";

export type SecretUse = "sessions" | "model-settings";

export function deriveKey(secret: string, use: SecretUse): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), `phoneloop:${use}`, 32));
}

/** A fresh secret (256 bits, base64url): what `npm start` writes to .data/secret-key when none is set. */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}
