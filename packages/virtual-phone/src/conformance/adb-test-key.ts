// Test-only: an RSA key as an ADB host holds it — its adbkey.pub line (what a phone's adb_keys lists) and the
// token signature a host sends in AUTH(SIGNATURE).
import { constants, generateKeyPairSync, privateEncrypt } from "node:crypto";
import { adbGeneratePublicKey } from "@yume-chan/adb";

// PKCS#1 v1.5 DigestInfo prefix for SHA-1: adb signs the 20-byte token as if it were a SHA-1 digest
const SHA1_DIGEST_INFO = Buffer.from("3021300906052b0e03021a05000414", "hex");

export interface AdbTestKey {
  /** "<base64 Android RSA public key> <name>", as in adbkey.pub and adb_keys */
  publicKeyLine: string;
  /** PKCS#8 DER, as @yume-chan/adb credential stores hold it */
  pkcs8: Uint8Array;
  sign(token: Uint8Array): Buffer;
}

export function adbTestKey(name = "test@phoneloop"): AdbTestKey {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, publicExponent: 65537 });
  const pkcs8 = new Uint8Array(privateKey.export({ type: "pkcs8", format: "der" }));
  return {
    publicKeyLine: adbPublicKeyLine(pkcs8, name),
    pkcs8,
    sign: (token) => privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA1_DIGEST_INFO, Buffer.from(token)])),
  };
}

export function adbPublicKeyLine(pkcs8: Uint8Array, name: string): string {
  return `${Buffer.from(adbGeneratePublicKey(pkcs8)).toString("base64")} ${name}`;
}
