// Node only: ADB straight to an adbd listening on TCP (a phone in `adb tcpip` mode, an emulator, the virtual phone).
import { connect as netConnect, type Socket } from "node:net";
import type { Adb, AdbDaemonConnection, AdbDaemonDevice } from "@yume-chan/adb";
import { ReadableStream } from "@yume-chan/stream-extra";
import { ConnectionFailed, DeviceDisconnected } from "../errors.ts";
import { connectDaemonDevice, type DaemonConnectOptions } from "./handshake.ts";
import { packetConnectionOverBytes } from "./packet-stream.ts";

export interface TcpDeviceOptions {
  host?: string;
  port: number;
  serial?: string;
  connectTimeoutMs?: number;
}

export class AdbDaemonTcpDevice implements AdbDaemonDevice {
  readonly serial: string;
  readonly name: string | undefined;
  readonly #host: string;
  readonly #port: number;
  readonly #connectTimeoutMs: number;
  #socket: Socket | undefined;

  constructor(opts: TcpDeviceOptions) {
    this.#host = opts.host ?? "127.0.0.1";
    this.#port = opts.port;
    this.serial = opts.serial ?? `${this.#host}:${this.#port}`;
    this.name = `ADB over TCP (${this.serial})`;
    this.#connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  }

  async connect(): Promise<AdbDaemonConnection> {
    const target = `${this.#host}:${this.#port}`;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = netConnect({ host: this.#host, port: this.#port });
      s.setNoDelay(true);
      s.setTimeout(this.#connectTimeoutMs, () => {
        s.destroy();
        reject(new ConnectionFailed(target, `no answer within ${this.#connectTimeoutMs} ms`, "Check the phone's IP and port, and that it is on the same network."));
      });
      s.once("connect", () => {
        s.setTimeout(0);
        resolve(s);
      });
      s.once("error", (e: NodeJS.ErrnoException) => {
        const fix =
          e.code === "ECONNREFUSED"
            ? "Nothing listens there: enable wireless debugging (or run `adb tcpip 5555` over USB) and check the port."
            : "Check the phone's IP and port, and that it is on the same network.";
        reject(new ConnectionFailed(target, e.code ?? e.message, fix, { cause: e }));
      });
    });
    this.#socket = socket;
    let done = false;
    let fail: (why: string) => void = () => undefined;
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        socket.on("data", (data: Buffer) => {
          if (!done) controller.enqueue(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        });
        fail = (why: string) => {
          if (done) return;
          done = true;
          controller.error(new DeviceDisconnected(why));
          socket.destroy();
        };
        socket.on("end", () => fail("the TCP connection was closed by the phone"));
        socket.on("close", () => fail("the TCP connection closed"));
        socket.on("error", (e) => fail(e.message));
      },
      cancel() {
        done = true;
        socket.destroy();
      },
    });
    return packetConnectionOverBytes(readable, {
      // A failed write means the connection is gone: that is reported once, through the readable side, so the
      // library's fire-and-forget packets (OKAY, CLSE) never turn into unhandled rejections.
      write: (bytes) =>
        new Promise<void>((resolve) => {
          if (done || socket.destroyed || !socket.writable) return resolve();
          // Copy: the serializer reuses its header buffer once this resolves, socket.write may still hold it.
          socket.write(Buffer.from(bytes), (e) => {
            if (e) fail(e.message);
            resolve();
          });
        }),
      close: () => {
        done = true;
        socket.end();
        socket.destroy();
      },
    });
  }

  abort(): void {
    this.#socket?.destroy();
  }
}

export interface TcpConnectOptions extends TcpDeviceOptions, DaemonConnectOptions {}

export function connectTcp(opts: TcpConnectOptions): Promise<Adb> {
  return connectDaemonDevice(new AdbDaemonTcpDevice(opts), opts);
}
