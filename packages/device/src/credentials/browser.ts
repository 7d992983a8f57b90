// Browser: one RSA-2048 key made with WebCrypto, kept in IndexedDB, so a phone that allowed this browser once
// reconnects without asking again.
import type { AdbCredentialStore, AdbPrivateKey } from "@yume-chan/adb";

const DB_VERSION = 1;
const STORE = "keys";

export interface BrowserCredentialStoreOptions {
  /** IndexedDB database name (default "phoneloop-adb"). */
  database?: string;
  /** Shown on the phone's "Allow USB debugging?" dialog. */
  name?: string;
  indexedDB?: IDBFactory;
}

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

export class BrowserCredentialStore implements AdbCredentialStore {
  readonly #database: string;
  readonly #name: string;
  readonly #idb: IDBFactory;

  constructor(opts: BrowserCredentialStoreOptions = {}) {
    this.#database = opts.database ?? "phoneloop-adb";
    this.#name = opts.name ?? `PhoneLoop@${globalThis.location?.hostname ?? "browser"}`;
    const idb = opts.indexedDB ?? globalThis.indexedDB;
    if (!idb) throw new Error("IndexedDB is not available in this browser");
    this.#idb = idb;
  }

  async #open(): Promise<IDBDatabase> {
    const open = this.#idb.open(this.#database, DB_VERSION);
    open.onupgradeneeded = () => {
      if (!open.result.objectStoreNames.contains(STORE)) open.result.createObjectStore(STORE, { autoIncrement: true });
    };
    return request(open);
  }

  async generateKey(): Promise<AdbPrivateKey> {
    const pair = await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([0x01, 0x00, 0x01]), hash: "SHA-1" },
      true,
      ["sign", "verify"],
    );
    const buffer = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
    const db = await this.#open();
    try {
      await request(db.transaction(STORE, "readwrite").objectStore(STORE).add(buffer));
    } finally {
      db.close();
    }
    return { buffer, name: this.#name };
  }

  async *iterateKeys(): AsyncIterable<AdbPrivateKey> {
    const db = await this.#open();
    let keys: Uint8Array[];
    try {
      keys = (await request(db.transaction(STORE, "readonly").objectStore(STORE).getAll())) as Uint8Array[];
    } finally {
      db.close();
    }
    for (const buffer of keys) yield { buffer: new Uint8Array(buffer), name: this.#name };
  }
}

/** Keys held only in memory (tests, one-off sessions): the phone will ask to authorize every time. */
export class MemoryCredentialStore implements AdbCredentialStore {
  readonly keys: AdbPrivateKey[] = [];
  constructor(readonly name = "PhoneLoop (temporary)") {}
  async generateKey(): Promise<AdbPrivateKey> {
    const pair = await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([0x01, 0x00, 0x01]), hash: "SHA-1" },
      true,
      ["sign", "verify"],
    );
    const key = { buffer: new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey)), name: this.name };
    this.keys.push(key);
    return key;
  }
  iterateKeys(): Iterable<AdbPrivateKey> {
    return this.keys.slice();
  }
}
