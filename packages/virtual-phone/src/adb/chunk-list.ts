// Bytes received in pieces, taken back out in exact sizes: shared by the message parser and stream input.
export class ChunkList {
  #chunks: Buffer[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Keeps a view of `data` (no copy); the caller must not reuse its buffer. */
  push(data: Uint8Array): void {
    if (data.length === 0) return;
    this.#chunks.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    this.#size += data.length;
  }

  /** Removes and returns the first `n` bytes; the caller checks `size` first. */
  take(n: number): Buffer {
    const first = this.#chunks[0];
    if (first && first.length >= n) {
      const part = Buffer.from(first.subarray(0, n));
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
      this.#size -= n;
      return part;
    }
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

  /** Removes and returns everything. */
  takeAll(): Buffer {
    const out = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#size = 0;
    return out;
  }
}
