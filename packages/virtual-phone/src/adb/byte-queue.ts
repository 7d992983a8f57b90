// An async byte queue: services read exact sizes (sync protocol) or whatever is available (shell stdin).
import { ChunkList } from "./chunk-list.ts";

export class StreamClosedError extends Error {
  readonly code = "STREAM_CLOSED";
  constructor() {
    super("the ADB stream was closed by the other side");
  }
}

export class ByteQueue {
  #bytes = new ChunkList();
  #ended = false;
  #waiter: (() => void) | null = null;

  get ended(): boolean {
    return this.#ended && this.#bytes.size === 0;
  }

  push(data: Uint8Array): void {
    if (this.#ended || data.length === 0) return;
    this.#bytes.push(Buffer.from(data)); // a copy: senders reuse their buffers
    this.#wake();
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = null;
    w?.();
  }

  async #waitFor(n: number): Promise<void> {
    while (this.#bytes.size < n && !this.#ended) {
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }

  async readExactly(n: number): Promise<Buffer> {
    await this.#waitFor(n);
    if (this.#bytes.size < n) throw new StreamClosedError();
    return this.#bytes.take(n);
  }

  /** Resolves with the next available bytes, or null at end of stream. */
  async read(): Promise<Buffer | null> {
    await this.#waitFor(1);
    if (this.#bytes.size === 0) return null;
    return this.#bytes.takeAll();
  }

  async readAll(): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (;;) {
      const b = await this.read();
      if (!b) return Buffer.concat(parts);
      parts.push(b);
    }
  }
}
