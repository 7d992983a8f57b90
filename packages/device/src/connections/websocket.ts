// ADB over a WebSocket that carries the raw adbd byte stream as binary messages: the virtual phone, or a real phone
// in wireless debugging behind a websockify bridge. Works with the browser WebSocket or any WHATWG-compatible one (ws).
import type { Adb, AdbDaemonConnection, AdbDaemonDevice } from "@yume-chan/adb";
import { ReadableStream } from "@yume-chan/stream-extra";
import { ConnectionFailed, DeviceDisconnected } from "../errors.ts";
import { connectDaemonDevice, type DaemonConnectOptions } from "./handshake.ts";
import { packetConnectionOverBytes } from "./packet-stream.ts";

/** The part of the WHATWG WebSocket this module uses. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: Uint8Array | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: (event: { data?: unknown }) => void): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface WebSocketDeviceOptions {
  url: string;
  serial?: string;
  /** Defaults to globalThis.WebSocket (browsers, Node 22+); pass `ws`'s WebSocket on Node 20. */
  WebSocket?: WebSocketConstructor;
  openTimeoutMs?: number;
}

export class AdbDaemonWebSocketDevice implements AdbDaemonDevice {
  readonly serial: string;
  readonly name: string | undefined;
  readonly #url: string;
  readonly #WebSocket: WebSocketConstructor;
  readonly #openTimeoutMs: number;
  #socket: WebSocketLike | undefined;

  constructor(opts: WebSocketDeviceOptions) {
    this.#url = opts.url;
    this.serial = opts.serial ?? opts.url;
    this.name = `ADB over WebSocket (${opts.url})`;
    const ctor = opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!ctor) throw new ConnectionFailed(opts.url, "this runtime has no WebSocket", "Pass a WebSocket implementation (e.g. the `ws` package) in the options.");
    this.#WebSocket = ctor;
    this.#openTimeoutMs = opts.openTimeoutMs ?? 10_000;
  }

  async connect(): Promise<AdbDaemonConnection> {
    const ws = new this.#WebSocket(this.#url);
    ws.binaryType = "arraybuffer";
    this.#socket = ws;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        ws.close();
        reject(new ConnectionFailed(this.#url, `no answer within ${this.#openTimeoutMs} ms`, "Check that the phone bridge (or virtual phone) is running and the address is right."));
      }, this.#openTimeoutMs);
      ws.addEventListener("open", () => {
        clearTimeout(timer);
        resolve();
      });
      ws.addEventListener("error", () => {
        clearTimeout(timer);
        reject(new ConnectionFailed(this.#url, "the WebSocket could not be opened", "Check that the phone bridge (or virtual phone) is running and the address is right."));
      });
    });
    let closed = false;
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        ws.addEventListener("message", (event: { data?: unknown }) => {
          if (closed) return;
          const data = event.data;
          if (data instanceof ArrayBuffer) controller.enqueue(new Uint8Array(data));
          else if (ArrayBuffer.isView(data)) controller.enqueue(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        });
        ws.addEventListener("close", () => {
          if (closed) return;
          closed = true;
          controller.error(new DeviceDisconnected("the WebSocket closed"));
        });
      },
      cancel() {
        closed = true;
        ws.close();
      },
    });
    return packetConnectionOverBytes(readable, {
      // The serializer reuses its header buffer, so send a copy.
      // Once the socket is closed the loss is reported through the readable side; writes are dropped quietly.
      write: (bytes) => {
        if (closed || ws.readyState !== 1) return;
        ws.send(bytes.slice());
      },
      close: () => {
        closed = true;
        ws.close();
      },
    });
  }

  /** Drops the socket (used to abort a handshake). */
  abort(): void {
    this.#socket?.close();
  }
}

export interface WebSocketConnectOptions extends WebSocketDeviceOptions, DaemonConnectOptions {}

export function connectWebSocket(opts: WebSocketConnectOptions): Promise<Adb> {
  return connectDaemonDevice(new AdbDaemonWebSocketDevice(opts), opts);
}
