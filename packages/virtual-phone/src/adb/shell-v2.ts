// Shell protocol v2 packets: 1-byte id, uint32 LE length, data.

export const ShellPacketId = { STDIN: 0, STDOUT: 1, STDERR: 2, EXIT: 3, CLOSE_STDIN: 4, WINDOW_SIZE: 5 } as const;
export type ShellPacketId = (typeof ShellPacketId)[keyof typeof ShellPacketId];

export function encodeShellPacket(id: ShellPacketId, data: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + data.length);
  out[0] = id;
  out.writeUInt32LE(data.length, 1);
  out.set(data, 5);
  return out;
}

/** Splits a byte stream into shell v2 packets, however it is chunked. */
export class ShellPacketParser {
  #buf = Buffer.alloc(0);
  push(chunk: Uint8Array): { id: number; data: Buffer }[] {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : Buffer.from(chunk);
    const out: { id: number; data: Buffer }[] = [];
    while (this.#buf.length >= 5) {
      const len = this.#buf.readUInt32LE(1);
      if (this.#buf.length < 5 + len) break;
      out.push({ id: this.#buf[0]!, data: Buffer.from(this.#buf.subarray(5, 5 + len)) });
      this.#buf = this.#buf.subarray(5 + len);
    }
    return out;
  }
}

/** Parses "shell,v2,TERM=xterm,raw:ls" / "shell:ls" / "exec:ls" service strings. */
export function parseShellService(service: string): { v2: boolean; pty: boolean; command: string; exec: boolean } | null {
  if (service.startsWith("exec:")) return { v2: false, pty: false, command: service.slice(5), exec: true };
  if (!service.startsWith("shell")) return null;
  const colon = service.indexOf(":");
  if (colon === -1) return null;
  const opts = service.slice(0, colon).split(",").slice(1);
  const command = service.slice(colon + 1);
  const v2 = opts.includes("v2");
  // Without an explicit type, an empty command (interactive) gets a pty and a command does not, as in adbd.
  const pty = opts.includes("pty") ? true : opts.includes("raw") ? false : command === "";
  if (service.slice(0, colon) !== "shell" && !service.startsWith("shell,")) return null;
  return { v2, pty, command, exec: false };
}
