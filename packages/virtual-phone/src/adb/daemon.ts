// The device side of one ADB connection: handshake, AUTH, and multiplexed streams with flow control.
import {
  ADB_DEVICE_MAX_PAYLOAD,
  ADB_VERSION,
  ADB_VERSION_SKIP_CHECKSUM,
  AdbAuthType,
  AdbCommand,
  AdbMessageParser,
  commandName,
  encodeMessage,
  type AdbMessage,
} from "./message.ts";
import { type AdbKeyStore, newAuthToken, parseAdbPublicKey, verifyTokenSignature } from "./auth.ts";
import { DeviceStream } from "./stream.ts";

/** How bytes leave the daemon. `send` gets header and payload separately (USB framing keeps them apart). */
export interface AdbTransportSink {
  send(header: Buffer, payload: Buffer): void;
  close(): void;
}

export type ServiceHandler = (stream: DeviceStream) => Promise<void>;
/** Returns the handler for a service string, or null to refuse the OPEN (client sees "closed"). */
export type ServiceRouter = (service: string) => ServiceHandler | null;

export interface AdbDaemonInit {
  /** "device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…" */
  banner: string;
  features: readonly string[];
  router: ServiceRouter;
  /** Clients authenticate with an RSA key this store trusts (or that the user allows on the prompt); always asked. */
  keyStore: AdbKeyStore;
  /** Bytes the device lets a client send on a stream before an ack (delayed_ack only). */
  receiveWindow?: number;
  log?: (line: string) => void;
  /** True while the phone reboots: connections are dropped as they arrive, as if nothing listened. */
  isOffline?: () => boolean;
}

export type AdbSessionState = "connecting" | "unauthorized" | "device" | "offline";

export class AdbDaemonSession {
  #parser = new AdbMessageParser(1024 * 1024);
  #streams = new Map<number, DeviceStream>();
  #nextLocalId = 1;
  #version = ADB_VERSION;
  #maxPayload = ADB_DEVICE_MAX_PAYLOAD;
  #delayedAck = false;
  #token: Buffer | null = null;
  #authInFlight = false;
  state: AdbSessionState = "connecting";
  clientBanner = "";

  constructor(
    private readonly sink: AdbTransportSink,
    private readonly init: AdbDaemonInit,
  ) {}
  #authorized = false;

  get delayedAck(): boolean {
    return this.#delayedAck;
  }
  get maxPayload(): number {
    return this.#maxPayload;
  }
  get openStreams(): number {
    return this.#streams.size;
  }

  /** Feed bytes from the transport, in any chunking. */
  receive(chunk: Uint8Array): void {
    if (this.init.isOffline?.()) {
      this.close();
      return;
    }
    let messages: AdbMessage[];
    try {
      messages = this.#parser.push(chunk);
    } catch (e) {
      this.init.log?.(`adb: ${(e as Error).message}; dropping the connection`);
      this.close();
      return;
    }
    for (const m of messages) this.#handle(m);
  }

  /** Transport went away: end every stream. */
  closed(): void {
    this.state = "offline";
    for (const s of this.#streams.values()) s.remoteClosed();
    this.#streams.clear();
  }

  close(): void {
    this.closed();
    this.sink.close();
  }

  send(command: number, arg0: number, arg1: number, payload: Buffer = EMPTY): void {
    if (this.state === "offline") return;
    const withChecksum = this.#version < ADB_VERSION_SKIP_CHECKSUM || command === AdbCommand.CNXN || command === AdbCommand.AUTH;
    const { header } = encodeMessage({ command, arg0, arg1, payload }, withChecksum);
    this.sink.send(header, payload);
  }

  #handle(m: AdbMessage): void {
    switch (m.command) {
      case AdbCommand.CNXN:
        return this.#onConnect(m);
      case AdbCommand.AUTH:
        return void this.#onAuth(m);
      default:
        if (!this.#authorized || this.state !== "device") {
          this.init.log?.(`adb: ignoring ${commandName(m.command)} before the connection is authorized`);
          return;
        }
    }
    switch (m.command) {
      case AdbCommand.OPEN:
        return this.#onOpen(m);
      case AdbCommand.OKAY: {
        const s = this.#streams.get(m.arg1);
        if (!s) return;
        s.remoteId = m.arg0;
        s.acked(this.#delayedAck && m.payload.length >= 4 ? m.payload.readUInt32LE(0) : Infinity);
        return;
      }
      case AdbCommand.WRTE: {
        const s = this.#streams.get(m.arg1);
        if (!s) {
          this.send(AdbCommand.CLSE, 0, m.arg0);
          return;
        }
        s.remoteData(m.payload);
        this.send(AdbCommand.OKAY, s.localId, s.remoteId, this.#okayPayload(m.payload.length));
        return;
      }
      case AdbCommand.CLSE: {
        const s = this.#streams.get(m.arg1);
        if (!s) return;
        this.#streams.delete(m.arg1);
        // adbd answers a host's CLSE with its own before forgetting the stream; hosts that wait for it (sync) hang otherwise
        this.send(AdbCommand.CLSE, s.localId, s.remoteId);
        s.remoteClosed();
        return;
      }
      default:
        this.init.log?.(`adb: unknown command ${commandName(m.command)} (0x${m.command.toString(16)}) ignored`);
    }
  }

  #okayPayload(ack: number): Buffer {
    if (!this.#delayedAck) return EMPTY;
    const b = Buffer.alloc(4);
    b.writeUInt32LE(ack >>> 0);
    return b;
  }

  #onConnect(m: AdbMessage): void {
    // A new CNXN resets the connection, as on a real device.
    for (const s of this.#streams.values()) s.remoteClosed();
    this.#streams.clear();
    this.#version = Math.min(ADB_VERSION, m.arg0);
    this.#maxPayload = Math.min(ADB_DEVICE_MAX_PAYLOAD, m.arg1 || ADB_DEVICE_MAX_PAYLOAD);
    this.clientBanner = m.payload.toString("utf8").replace(/\0+$/, "");
    const clientFeatures = /features=([^;]*)/.exec(this.clientBanner)?.[1]?.split(",") ?? [];
    this.#delayedAck = clientFeatures.includes("delayed_ack") && this.init.features.includes("delayed_ack");
    if (this.#authorized) return this.#sendConnect();
    this.state = "unauthorized";
    this.#sendToken();
  }

  #sendToken(): void {
    this.#token = newAuthToken();
    this.send(AdbCommand.AUTH, AdbAuthType.TOKEN, 0, this.#token);
  }

  #sendConnect(): void {
    this.state = "device";
    this.send(AdbCommand.CNXN, ADB_VERSION, ADB_DEVICE_MAX_PAYLOAD, Buffer.from(this.init.banner, "utf8"));
  }

  async #onAuth(m: AdbMessage): Promise<void> {
    const store = this.init.keyStore;
    if (this.#authorized) return;
    if (m.arg0 === AdbAuthType.SIGNATURE) {
      const token = this.#token;
      if (token && [...store.accepted.values()].some((k) => verifyTokenSignature(k.key, token, m.payload))) {
        this.#authorized = true;
        this.#sendConnect();
      } else {
        this.#sendToken();
      }
      return;
    }
    if (m.arg0 === AdbAuthType.RSAPUBLICKEY) {
      if (this.#authInFlight) return;
      let key;
      try {
        key = parseAdbPublicKey(m.payload);
      } catch (e) {
        this.init.log?.(`adb: ${(e as Error).message}`);
        return;
      }
      this.#authInFlight = true;
      this.init.log?.(`adb: "Allow USB debugging?" for key ${key.fingerprint} ${key.name}`);
      const decision = await store.ask(key);
      this.#authInFlight = false;
      if (decision === "accept" && this.state !== "offline") {
        this.#authorized = true;
        this.#sendConnect();
      }
    }
  }

  #onOpen(m: AdbMessage): void {
    const service = m.payload.toString("utf8").replace(/\0+$/, "");
    const remoteId = m.arg0;
    const handler = this.init.router(service);
    if (!handler) {
      this.init.log?.(`adb: refused service "${service}"`);
      this.send(AdbCommand.CLSE, 0, remoteId);
      return;
    }
    const localId = this.#nextLocalId++;
    const stream = new DeviceStream({
      localId,
      remoteId,
      service,
      maxPayload: this.#maxPayload,
      // Without delayed_ack one WRTE may be in flight; with it, the client's OPEN arg1 is its window.
      initialWindow: this.#delayedAck ? m.arg1 || Infinity : Infinity,
      delayedAck: this.#delayedAck,
      sendWrite: (data) => this.send(AdbCommand.WRTE, localId, stream.remoteId, data),
      sendClose: () => {
        if (this.#streams.delete(localId)) this.send(AdbCommand.CLSE, localId, stream.remoteId);
      },
    });
    this.#streams.set(localId, stream);
    this.send(AdbCommand.OKAY, localId, remoteId, this.#okayPayload(this.init.receiveWindow ?? 32 * 1024 * 1024));
    handler(stream)
      .catch((e: unknown) => {
        if ((e as { code?: string }).code !== "STREAM_CLOSED") this.init.log?.(`adb: service "${service}" failed: ${(e as Error).stack ?? e}`);
      })
      .finally(() => stream.close());
  }
}

const EMPTY = Buffer.alloc(0);
