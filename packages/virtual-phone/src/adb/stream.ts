// One ADB stream on the device: what a service reads from and writes to, with the protocol's flow control.
import { ByteQueue, StreamClosedError } from "./byte-queue.ts";

export interface DeviceStreamInit {
  localId: number;
  remoteId: number;
  service: string;
  maxPayload: number;
  initialWindow: number;
  delayedAck: boolean;
  sendWrite(data: Buffer): void;
  sendClose(): void;
}

export class DeviceStream {
  readonly localId: number;
  remoteId: number;
  readonly service: string;
  readonly input = new ByteQueue();
  #init: DeviceStreamInit;
  /** delayed_ack: bytes the client still accepts; otherwise Infinity = may send one WRTE, -1 = waiting for OKAY. */
  #available: number;
  #waiter: (() => void) | null = null;
  #closed = false;
  #closeListeners: (() => void)[] = [];

  constructor(init: DeviceStreamInit) {
    this.#init = init;
    this.localId = init.localId;
    this.remoteId = init.remoteId;
    this.service = init.service;
    this.#available = init.initialWindow;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  onClose(fn: () => void): void {
    if (this.#closed) fn();
    else this.#closeListeners.push(fn);
  }

  async write(data: Uint8Array): Promise<void> {
    const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    for (let off = 0; off < buf.length; off += this.#init.maxPayload) {
      const chunk = buf.subarray(off, Math.min(buf.length, off + this.#init.maxPayload));
      await this.#reserve(chunk.length);
      this.#init.sendWrite(Buffer.from(chunk));
    }
  }

  async #reserve(n: number): Promise<void> {
    for (;;) {
      if (this.#closed) throw new StreamClosedError();
      if (this.#init.delayedAck) {
        if (this.#available >= n) {
          this.#available -= n;
          return;
        }
      } else if (this.#available === Infinity) {
        this.#available = -1;
        return;
      }
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }

  /** OKAY from the client. */
  acked(bytes: number): void {
    if (this.#init.delayedAck) this.#available += bytes;
    else this.#available = Infinity;
    const w = this.#waiter;
    this.#waiter = null;
    w?.();
  }

  remoteData(data: Buffer): void {
    this.input.push(data);
  }

  remoteClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.input.end();
    this.#fireClose();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.input.end();
    this.#init.sendClose();
    this.#fireClose();
  }

  #fireClose(): void {
    const w = this.#waiter;
    this.#waiter = null;
    w?.();
    for (const fn of this.#closeListeners.splice(0)) fn();
  }
}
