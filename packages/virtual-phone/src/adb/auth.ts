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
 * Whom the phone trusts. "ask" (the default, as on a real phone): a key not in adb_keys waits on the
 * "Allow USB debugging?" prompt. "any-key": every key is allowed at once, as if someone tapped Allow — only for
 * tests that exercise something else; the AUTH exchange still happens.
 */
export type AdbTrust = "ask" | "any-key";
export const ADB_TRUST = ["ask", "any-key"] as const satisfies readonly AdbTrust[];

/** The phone's /data/misc/adb/adb_keys: one "<base64 key> <user@host>" per line. Blank and # lines are skipped. */
export function parseAdbKeys(text: string, source = "adb_keys"): AdbPublicKey[] {
  const keys: AdbPublicKey[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    const t = line.trim();
    if (!t || t.startsWith("#")) continue;
    try {
      keys.push(parseAdbPublicKey(Buffer.from(t, "utf8")));
    } catch (e) {
      throw new AdbAuthKeyError(`${source} line ${i + 1} is not an ADB public key (${(e as Error).message}); use the contents of an adbkey.pub file`);
    }
  }
  return keys;
}

export interface AdbKeyStoreInit {
  trust?: AdbTrust;
  /** Keys already in adb_keys (pre-authorised): they connect by signature, with no prompt. */
  adbKeys?: AdbPublicKey[];
  /** Called with the new adb_keys text whenever a key is remembered or the list is revoked (to persist it). */
  onAdbKeysChange?: (text: string) => void;
}

/**
 * The "Allow USB debugging?" prompt and the adb_keys it fills. A key waits until the prompt is answered: Allow
 * with "Always allow from this computer" adds it to adb_keys; Allow alone lets in the waiting connection only.
 */
export class AdbKeyStore {
  readonly trust: AdbTrust;
  /** adb_keys: keys that connect by signature without asking. */
  readonly accepted = new Map<string, AdbPublicKey>();
  readonly pending = new Map<string, { key: AdbPublicKey; resolve: (d: AuthDecision) => void }>();
  readonly #onAdbKeysChange: ((text: string) => void) | undefined;

  /** Called whenever the set of keys waiting on the prompt changes. */
  onPendingChange: (() => void) | null = null;

  constructor(init: AdbKeyStoreInit = {}) {
    this.trust = init.trust ?? "ask";
    for (const k of init.adbKeys ?? []) this.accepted.set(k.base64, k);
    this.#onAdbKeysChange = init.onAdbKeysChange;
  }

  /** Asks the "user"; resolves when the prompt is answered. */
  ask(key: AdbPublicKey): Promise<AuthDecision> {
    if (this.accepted.has(key.base64)) return Promise.resolve("accept");
    if (this.trust === "any-key") {
      this.#remember([key]);
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

  /**
   * Answers every pending prompt (or the one with this fingerprint). `always` is the "Always allow from this
   * computer" checkbox. Returns how many were answered.
   */
  answer(decision: AuthDecision, opts: { fingerprint?: string; always?: boolean } = {}): number {
    const answered: AdbPublicKey[] = [];
    for (const [b64, p] of [...this.pending]) {
      if (opts.fingerprint && p.key.fingerprint !== opts.fingerprint) continue;
      this.pending.delete(b64);
      answered.push(p.key);
      p.resolve(decision);
    }
    if (decision === "accept" && opts.always) this.#remember(answered);
    if (answered.length) this.onPendingChange?.();
    return answered.length;
  }

  /** "Revoke USB debugging authorizations": adb_keys is emptied; connected clients stay. */
  revokeAll(): void {
    this.accepted.clear();
    this.#onAdbKeysChange?.(this.adbKeysText());
  }

  listPending(): { fingerprint: string; name: string }[] {
    return [...this.pending.values()].map((p) => ({ fingerprint: p.key.fingerprint, name: p.key.name }));
  }

  listAccepted(): { fingerprint: string; name: string }[] {
    return [...this.accepted.values()].map((k) => ({ fingerprint: k.fingerprint, name: k.name }));
  }

  /** adb_keys as Android writes it. */
  adbKeysText(): string {
    return [...this.accepted.values()].map((k) => `${k.base64}${k.name ? ` ${k.name}` : ""}\n`).join("");
  }

  #remember(keys: AdbPublicKey[]): void {
    const fresh = keys.filter((k) => !this.accepted.has(k.base64));
    for (const k of fresh) this.accepted.set(k.base64, k);
    if (fresh.length) this.#onAdbKeysChange?.(this.adbKeysText());
  }
}
