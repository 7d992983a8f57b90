// One secret from the environment (PHONELOOP_SECRET_KEY) yields a separate key per use, so the session-signing
// key and the key that encrypts model settings at rest are never the same bytes.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export type SecretUse = "sessions" | "model-settings" | "webhook-secrets";

export function deriveKey(secret: string, use: SecretUse): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), `phoneloop:${use}`, 32));
}

/** A fresh secret (256 bits, base64url): what `npm start` writes to .data/secret-key when none is set. */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** AES-256-GCM under a derived key: what the API stores of a secret it must use again (model keys, webhook secrets). */
export function sealSecret(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

/** The secret sealSecret sealed; `what` names it in the errors ("model key", "webhook secret"). */
export function openSecret(key: Buffer, sealed: string, what: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error(`A stored ${what} is in an unknown format; an admin must set it again.`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new Error(`The stored ${what} cannot be decrypted: PHONELOOP_SECRET_KEY changed since it was saved. An admin must set it again.`);
  }
}
