// Secrets kept in the data folder: created once with 256 random bits, readable by the owner only (0600).
import { createECDH, randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";

/** The secret in `path`, made (base64url, no padding: safe in URLs and SQL literals) when the file is missing. */
export function readOrCreateSecret(path: string): string {
  if (existsSync(path)) {
    chmodSync(path, 0o600);
    const value = readFileSync(path, "utf8").trim();
    if (value) return value;
  }
  const value = randomBytes(32).toString("base64url");
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return value;
}

/**
 * Web Push's VAPID key pair in `path` (JSON, 0600), made when the file is missing: a P-256 key, the public key as
 * the uncompressed point and the private key as its 32 bytes, both base64url — what push services and the browser's
 * PushManager expect. Only the public key ever leaves the API.
 */
export function readOrCreateVapidKeys(path: string): { publicKey: string; privateKey: string } {
  if (existsSync(path)) {
    chmodSync(path, 0o600);
    const kept = JSON.parse(readFileSync(path, "utf8")) as { publicKey?: string; privateKey?: string };
    if (kept.publicKey && kept.privateKey) return { publicKey: kept.publicKey, privateKey: kept.privateKey };
  }
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  // The private key as exactly 32 bytes (a key with leading zero bytes comes back shorter).
  const d = ecdh.getPrivateKey();
  const keys = { publicKey: ecdh.getPublicKey("base64url"), privateKey: Buffer.concat([Buffer.alloc(32 - d.length), d]).toString("base64url") };
  writeFileSync(path, `${JSON.stringify(keys)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return keys;
}
