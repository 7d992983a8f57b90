// Test-only: a tiny AdbDaemonConnection over node:net and over `ws`, and a node:crypto credential store,
// so @yume-chan/adb can talk to the virtual phone the way packages/device will.
import { generateKeyPairSync } from "node:crypto";
import { connect } from "node:net";
import { once } from "node:events";
import { WebSocket } from "ws";
import { AdbPacket, AdbPacketSerializeStream, type AdbCredentialStore, type AdbDaemonConnection, type AdbPrivateKey } from "@yume-chan/adb";
import { Consumable, pipeFrom, ReadableStream, StructDeserializeStream } from "@yume-chan/stream-extra";
import { adbPublicKeyLine } from "./adb-test-key.ts";

function connectionFrom(onData: (fn: (d: Uint8Array) => void, end: () => void, fail: (e: unknown) => void) => void, send: (b: Buffer) => Promise<void>, close: () => void): AdbDaemonConnection {
  const readable = new ReadableStream<Uint8Array>({
    start(c) {
      onData(
        (d) => c.enqueue(d),
        () => {
          try {
            c.close();
          } catch {
            // already closed
          }
        },
        (e) => c.error(e),
      );
    },
    cancel: close,
  });
  const writable = new Consumable.WritableStream<Uint8Array>({
    // the serializer reuses its header buffer: copy before it is handed back
    write: (chunk) => send(Buffer.from(chunk)),
    close,
  });
  return { readable: readable.pipeThrough(new StructDeserializeStream(AdbPacket)), writable: pipeFrom(writable, new AdbPacketSerializeStream()) };
}

export async function tcpConnection(port: number, host = "127.0.0.1"): Promise<AdbDaemonConnection & { destroy(): void }> {
  const socket = connect(port, host);
  socket.setNoDelay(true);
  await once(socket, "connect");
  const conn = connectionFrom(
    (data, end, fail) => {
      socket.on("data", (d: Buffer) => data(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)));
      socket.on("close", end);
      socket.on("error", fail);
    },
    (b) => new Promise((res, rej) => socket.write(b, (e) => (e ? rej(e) : res()))),
    () => socket.end(),
  );
  return { ...conn, destroy: () => socket.destroy() };
}

export async function wsConnection(url: string): Promise<AdbDaemonConnection & { destroy(): void }> {
  const ws = new WebSocket(url);
  ws.binaryType = "nodebuffer";
  await once(ws, "open");
  const conn = connectionFrom(
    (data, end, fail) => {
      ws.on("message", (d: Buffer) => data(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)));
      ws.on("close", end);
      ws.on("error", fail);
    },
    (b) => new Promise((res, rej) => ws.send(b, { binary: true }, (e) => (e ? rej(e) : res()))),
    () => ws.close(),
  );
  return { ...conn, destroy: () => ws.terminate() };
}

/** RSA keys in memory, generated with node:crypto (PKCS#8 DER, as the store contract requires). */
export class NodeCredentialStore implements AdbCredentialStore {
  readonly keys: AdbPrivateKey[] = [];
  constructor(readonly name = "test@phoneloop") {}
  generateKey(): AdbPrivateKey {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, publicExponent: 65537 });
    const key = { buffer: new Uint8Array(privateKey.export({ type: "pkcs8", format: "der" })), name: this.name };
    this.keys.push(key);
    return key;
  }
  *iterateKeys(): Iterable<AdbPrivateKey> {
    yield* this.keys;
  }
  /** adbkey.pub lines of the keys held, to start a phone that already trusts them. */
  publicKeyLines(): string[] {
    return this.keys.map((k) => adbPublicKeyLine(k.buffer, k.name ?? this.name));
  }
}

/** A store holding one key, and its public key line for `startVirtualPhone({ adbKeys })`. */
export function trustedStore(name?: string): NodeCredentialStore {
  const store = new NodeCredentialStore(name);
  store.generateKey();
  return store;
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(Buffer.from(value));
  }
  return Buffer.concat(parts);
}
