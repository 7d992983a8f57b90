// Connection failures a user meets before any phone answers, each explained with its fix.
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adbGeneratePublicKey } from "@yume-chan/adb";
import { describe, expect, it } from "vitest";
import { connectTcp } from "./connections/tcp.ts";
import { MemoryCredentialStore } from "./credentials/browser.ts";
import { NodeCredentialStore } from "./credentials/node.ts";
import { ConnectionFailed, DeviceTimeout } from "./errors.ts";
import { connectWebSocketNode } from "./node.ts";

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe("connection failures", () => {
  it("TCP: nothing listening is explained with how to enable wireless debugging", async () => {
    const e = await connectTcp({ port: await closedPort(), credentialStore: new MemoryCredentialStore() }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionFailed);
    expect((e as Error).message).toMatch(/ECONNREFUSED.*wireless debugging/s);
  });

  it("TCP: a peer that accepts but never speaks ADB times out the handshake", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    try {
      const port = (silent.address() as { port: number }).port;
      const e = await connectTcp({ port, credentialStore: new MemoryCredentialStore(), handshakeTimeoutMs: 200 }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(DeviceTimeout);
    } finally {
      silent.close();
    }
  });

  it("WebSocket: a bridge that is not running is explained", async () => {
    const e = await connectWebSocketNode({ url: `ws://127.0.0.1:${await closedPort()}/`, credentialStore: new MemoryCredentialStore() }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionFailed);
    expect((e as Error).message).toMatch(/bridge|virtual phone/);
  });
});

describe("NodeCredentialStore", () => {
  it("generates one RSA key in adb's files (PEM private key, base64 public key with a name) and reads it back", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "phoneloop-key-")), "adbkey");
    const store = new NodeCredentialStore({ path, name: "me@laptop" });
    expect([...store.iterateKeys()]).toEqual([]);
    const key = store.generateKey();
    expect(readFileSync(path, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const [b64, name] = readFileSync(`${path}.pub`, "utf8").trim().split(" ");
    expect(name).toBe("me@laptop");
    expect(Buffer.from(b64!, "base64")).toEqual(Buffer.from(adbGeneratePublicKey(key.buffer)));
    const [again] = [...new NodeCredentialStore({ path }).iterateKeys()];
    expect(Buffer.from(again!.buffer)).toEqual(Buffer.from(key.buffer));
  });
});
