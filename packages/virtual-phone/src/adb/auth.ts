// ADB RSA authentication, device side: parse Android-format public keys and check token signatures.
import { createHash, createPublicKey, publicDecrypt, randomBytes, constants, type KeyObject } from "node:crypto";

export const AUTH_TOKEN_SIZE = 20;
// DER prefix of a PKCS#1 v1.5 DigestInfo for SHA-1: the client signs the token as if it were a SHA-1 digest.
const SHA1_DIGEST_INFO = Buffer.from("3021300906052b0e03021a05000414", "hex");

export interface AdbPublicKey {
  /** The base64 text as the client sent it (what adb_keys stores). */
  base64: string;
  /** The user@host comment after the key, if any. */
  name: string;
  key: KeyObject;
  fingerprint: string;
}

export class AdbAuthKeyError extends Error {
  readonly code = "ADB_BAD_PUBLIC_KEY";
}

/** Parses "<base64 of Android RSAPublicKey struct> user@host\0". */
export function parseAdbPublicKey(payload: Uint8Array): AdbPublicKey {
  const text = Buffer.from(payload).toString("utf8").replace(/\0+$/, "").trim();
  const space = text.indexOf(" ");
  const base64 = space === -1 ? text : text.slice(0, space);
  const name = space === -1 ? "" : text.slice(space + 1);
  const raw = Buffer.from(base64, "base64");
  if (raw.length < 8) throw new AdbAuthKeyError("the public key sent by the client is too short to be an Android RSA key");
  const words = raw.readUInt32LE(0);
  const expected = 4 + 4 + words * 4 * 2 + 4;
  if (words === 0 || raw.length !== expected) {
    throw new AdbAuthKeyError(`the public key sent by the client has ${raw.length} bytes, expected ${expected} for ${words * 32}-bit RSA`);
  }
  // modulus is stored as little-endian 32-bit words, least significant first: reversing all bytes gives big-endian
  const modulusLE = raw.subarray(8, 8 + words * 4);
  const n = Buffer.from(modulusLE).reverse();
  const exponent = raw.readUInt32LE(8 + words * 8);
  const e = Buffer.alloc(4);
  e.writeUInt32BE(exponent);
  let eTrim = e;
  while (eTrim.length > 1 && eTrim[0] === 0) eTrim = eTrim.subarray(1);
  const key = createPublicKey({ key: { kty: "RSA", n: n.toString("base64url"), e: eTrim.toString("base64url") }, format: "jwk" });
  const fingerprint = createHash("md5").update(raw).digest("hex").match(/../g)!.join(":").toUpperCase();
  return { base64, name, key, fingerprint };
}

export function newAuthToken(): Buffer {
  return randomBytes(AUTH_TOKEN_SIZE);
}

/** True when `signature` is a PKCS#1 v1.5 SHA-1 signature of `token` by `key`. */
export function verifyTokenSignature(key: KeyObject, token: Uint8Array, signature: Uint8Array): boolean {
  try {
    const recovered = publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(signature));
    return recovered.equals(Buffer.concat([SHA1_DIGEST_INFO, Buffer.from(token)]));
  } catch {
    return false;
  }
}

export type AuthDecision = "accept" | "reject";

/**
 * The "Allow USB debugging?" prompt. `mode: "auto"` accepts every new key (like tapping Allow at once);
 * "prompt" keeps keys pending until `accept()`/`reject()` is called (the control API does that).
 */
export class AdbKeyStore {
  readonly accepted = new Map<string, AdbPublicKey>();
  readonly pending = new Map<string, { key: AdbPublicKey; resolve: (d: AuthDecision) => void }>();

  /** Called whenever the set of keys waiting on the prompt changes. */
  onPendingChange: (() => void) | null = null;

  constructor(public mode: "auto" | "prompt" = "prompt") {}

  /** Asks the "user"; resolves when the prompt is answered. */
  ask(key: AdbPublicKey): Promise<AuthDecision> {
    if (this.accepted.has(key.base64)) return Promise.resolve("accept");
    if (this.mode === "auto") {
      this.accepted.set(key.base64, key);
      return Promise.resolve("accept");
    }
    return new Promise((resolve) => {
      const prev = this.pending.get(key.base64);
      this.pending.set(key.base64, {
        key,
        resolve: (d) => {
          prev?.resolve(d);
          resolve(d);
        },
      });
      this.onPendingChange?.();
    });
  }

  /** Answers every pending prompt (or the one with this fingerprint). Returns how many were answered. */
  answer(decision: AuthDecision, fingerprint?: string): number {
    let n = 0;
    for (const [b64, p] of [...this.pending]) {
      if (fingerprint && p.key.fingerprint !== fingerprint) continue;
      this.pending.delete(b64);
      if (decision === "accept") this.accepted.set(b64, p.key);
      p.resolve(decision);
      n++;
    }
    if (n) this.onPendingChange?.();
    return n;
  }

  revokeAll(): void {
    this.accepted.clear();
  }

  listPending(): { fingerprint: string; name: string }[] {
    return [...this.pending.values()].map((p) => ({ fingerprint: p.key.fingerprint, name: p.key.name }));
  }
}
