// An async byte queue: services read exact sizes (sync protocol) or whatever is available (shell stdin).

export class StreamClosedError extends Error {
  readonly code = "STREAM_CLOSED";
  constructor() {
    super("the ADB stream was closed by the other side");
  }
}

export class ByteQueue {
  #chunks: Buffer[] = [];
  #size = 0;
  #ended = false;
  #waiter: (() => void) | null = null;

  get ended(): boolean {
    return this.#ended && this.#size === 0;
  }

  push(data: Uint8Array): void {
    if (this.#ended || data.length === 0) return;
    this.#chunks.push(Buffer.from(data));
    this.#size += data.length;
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
    while (this.#size < n && !this.#ended) {
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }

  async readExactly(n: number): Promise<Buffer> {
    await this.#waitFor(n);
    if (this.#size < n) throw new StreamClosedError();
    const out = Buffer.alloc(n);
    let off = 0;
    while (off < n) {
      const c = this.#chunks[0]!;
      const k = Math.min(c.length, n - off);
      c.copy(out, off, 0, k);
      off += k;
      if (k === c.length) this.#chunks.shift();
      else this.#chunks[0] = c.subarray(k);
    }
    this.#size -= n;
    return out;
  }

  /** Resolves with the next available bytes, or null at end of stream. */
  async read(): Promise<Buffer | null> {
    await this.#waitFor(1);
    if (this.#size === 0) return null;
    const out = Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#size = 0;
    return out;
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
