// zlib inflate in Node: node:zlib directly (Node's DecompressionStream is ~5× slower on a 10 MB screenshot).
import { inflate as zlibInflate } from "node:zlib";

export function inflate(data: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => zlibInflate(data, (e, out) => (e ? reject(e) : resolve(new Uint8Array(out.buffer, out.byteOffset, out.byteLength)))));
}
