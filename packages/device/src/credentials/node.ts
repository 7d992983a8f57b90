// Node only: the ADB private key as a PEM PKCS#8 file, in the same place and format as the `adb` tool
// (~/.android/adbkey + adbkey.pub), so a phone that trusts this computer's adb trusts PhoneLoop too.
import { generateKeyPairSync, createPrivateKey } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { homedir, hostname, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { adbGeneratePublicKey, type AdbCredentialStore, type AdbPrivateKey } from "@yume-chan/adb";

export interface NodeCredentialStoreOptions {
  /** Default ~/.android/adbkey (respects ANDROID_USER_HOME / ANDROID_SDK_HOME like adb does). */
  path?: string;
  /** Shown on the phone's "Allow USB debugging?" dialog. */
  name?: string;
}

export function defaultAdbKeyPath(env: Record<string, string | undefined> = process.env): string {
  if (env.ANDROID_USER_HOME) return join(env.ANDROID_USER_HOME, "adbkey");
  if (env.ANDROID_SDK_HOME) return join(env.ANDROID_SDK_HOME, ".android", "adbkey");
  return join(homedir(), ".android", "adbkey");
}

export function adbPublicKeyLine(pkcs8: Uint8Array, name: string): string {
  return `${Buffer.from(adbGeneratePublicKey(pkcs8)).toString("base64")} ${name}\n`;
}

export class NodeCredentialStore implements AdbCredentialStore {
  readonly path: string;
  readonly name: string;

  constructor(opts: NodeCredentialStoreOptions = {}) {
    this.path = opts.path ?? defaultAdbKeyPath();
    this.name = opts.name ?? `${userInfo().username}@${hostname()} (PhoneLoop)`;
  }

  generateKey(): AdbPrivateKey {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, publicExponent: 65537 });
    const der = new Uint8Array(privateKey.export({ type: "pkcs8", format: "der" }));
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    writeFileSync(this.path, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    writeFileSync(`${this.path}.pub`, adbPublicKeyLine(der, this.name), { mode: 0o644 });
    return { buffer: der, name: this.name };
  }

  *iterateKeys(): Iterable<AdbPrivateKey> {
    if (!existsSync(this.path)) return;
    const key = createPrivateKey(readFileSync(this.path));
    yield { buffer: new Uint8Array(key.export({ type: "pkcs8", format: "der" })), name: this.name };
  }
}
