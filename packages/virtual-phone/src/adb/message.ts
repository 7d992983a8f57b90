// ADB wire messages: a 24-byte little-endian header (command, arg0, arg1, length, checksum, magic) and a payload.
import { ChunkList } from "./chunk-list.ts";

export const AdbCommand = {
  CNXN: 0x4e584e43,
  AUTH: 0x48545541,
  OPEN: 0x4e45504f,
  OKAY: 0x59414b4f,
  CLSE: 0x45534c43,
  WRTE: 0x45545257,
  STLS: 0x534c5453,
} as const;
export type AdbCommand = (typeof AdbCommand)[keyof typeof AdbCommand];

export const AdbAuthType = { TOKEN: 1, SIGNATURE: 2, RSAPUBLICKEY: 3 } as const;

/** The version from which checksums may be 0 (adb "skip checksum" version). */
export const ADB_VERSION_SKIP_CHECKSUM = 0x01000001;
export const ADB_VERSION = 0x01000001;
export const ADB_DEVICE_MAX_PAYLOAD = 256 * 1024;
export const ADB_HEADER_SIZE = 24;

export interface AdbMessage {
  command: number;
  arg0: number;
  arg1: number;
  payload: Buffer;
}

export function commandName(command: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(command >>> 0);
  return b.toString("latin1");
}

export function checksum(payload: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) sum = (sum + payload[i]!) >>> 0;
  return sum;
}

/** Header and payload stay separate so USB-like transports can send them as two transfers. */
export function encodeMessage(msg: AdbMessage, withChecksum: boolean): { header: Buffer; payload: Buffer } {
  const header = Buffer.alloc(ADB_HEADER_SIZE);
  header.writeUInt32LE(msg.command >>> 0, 0);
  header.writeUInt32LE(msg.arg0 >>> 0, 4);
  header.writeUInt32LE(msg.arg1 >>> 0, 8);
  header.writeUInt32LE(msg.payload.length, 12);
  header.writeUInt32LE(withChecksum ? checksum(msg.payload) : 0, 16);
  header.writeUInt32LE((msg.command ^ 0xffffffff) >>> 0, 20);
  return { header, payload: msg.payload };
}

export class AdbProtocolError extends Error {
  readonly code = "ADB_PROTOCOL";
}

/** Parses ADB messages out of a byte stream, however it is chunked. */
export class AdbMessageParser {
  #bytes = new ChunkList();
  #header: { command: number; arg0: number; arg1: number; length: number } | null = null;

  constructor(private readonly maxPayload: number = 1024 * 1024) {}

  push(chunk: Uint8Array): AdbMessage[] {
    this.#bytes.push(chunk);
    const out: AdbMessage[] = [];
    for (;;) {
      if (!this.#header) {
        if (this.#bytes.size < ADB_HEADER_SIZE) break;
        const h = this.#bytes.take(ADB_HEADER_SIZE);
        const command = h.readUInt32LE(0);
        const magic = h.readUInt32LE(20);
        if (((command ^ 0xffffffff) >>> 0) !== magic) {
          throw new AdbProtocolError(`bad ADB header: magic 0x${magic.toString(16)} does not match command 0x${command.toString(16)}`);
        }
        const length = h.readUInt32LE(12);
        if (length > this.maxPayload) {
          throw new AdbProtocolError(`ADB payload of ${length} bytes exceeds the maximum ${this.maxPayload}`);
        }
        this.#header = { command, arg0: h.readUInt32LE(4), arg1: h.readUInt32LE(8), length };
      }
      const hdr = this.#header;
      if (this.#bytes.size < hdr.length) break;
      const payload = hdr.length === 0 ? Buffer.alloc(0) : this.#bytes.take(hdr.length);
      this.#header = null;
      out.push({ command: hdr.command, arg0: hdr.arg0, arg1: hdr.arg1, payload });
    }
    return out;
  }
}
