// The sync: service (adb push/pull/ls): STAT, LIST, RECV, SEND and their v2 forms, over the in-memory file system.
import { ERRNO, FsError, type FsNode, type VirtualFs } from "../device/filesystem.ts";
import type { DeviceStream } from "./stream.ts";

export const SYNC_DATA_MAX = 64 * 1024;
const SEND_V2_FLAG_DRY_RUN = 0x80000000;

function id(s: string): Buffer {
  return Buffer.from(s, "latin1");
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

/** The 68-byte stat v2 body (after the id). */
export function statV2Body(node: FsNode | undefined, fs: VirtualFs, errno = 0, ino = 1): Buffer {
  const b = Buffer.alloc(68);
  if (!node) {
    b.writeUInt32LE(errno || ERRNO.ENOENT, 0);
    return b;
  }
  b.writeBigUInt64LE(0xfd00n, 4); // dev
  b.writeBigUInt64LE(BigInt(ino), 12);
  b.writeUInt32LE(fs.fullMode(node), 20);
  b.writeUInt32LE(node.kind === "dir" ? 2 : 1, 24); // nlink
  b.writeUInt32LE(0, 28); // uid root
  b.writeUInt32LE(1015, 32); // gid sdcard_rw
  b.writeBigUInt64LE(BigInt(node.data.length), 36);
  b.writeBigInt64LE(BigInt(node.mtime), 44);
  b.writeBigInt64LE(BigInt(node.mtime), 52);
  b.writeBigInt64LE(BigInt(node.mtime), 60);
  return b;
}

function statV1Body(node: FsNode | undefined, fs: VirtualFs): Buffer {
  if (!node) return Buffer.alloc(12);
  return Buffer.concat([u32(fs.fullMode(node)), u32(node.data.length), u32(node.mtime)]);
}

function inodeOf(path: string): number {
  let h = 7;
  for (const c of path) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h;
}

export async function runSyncService(stream: DeviceStream, fs: VirtualFs): Promise<void> {
  const input = stream.input;
  const fail = (message: string) => stream.write(Buffer.concat([id("FAIL"), u32(Buffer.byteLength(message)), Buffer.from(message)]));
  for (;;) {
    let hdr: Buffer;
    try {
      hdr = await input.readExactly(8);
    } catch {
      return; // client closed the stream
    }
    const cmd = hdr.toString("latin1", 0, 4);
    const len = hdr.readUInt32LE(4);
    if (cmd === "QUIT") return;
    if (len > 1024 * 4 + 64) {
      await fail(`path too long: ${len}`);
      return;
    }
    const path = (await input.readExactly(len)).toString("utf8");
    switch (cmd) {
      case "STAT":
        await stream.write(Buffer.concat([id("STAT"), statV1Body(fs.lookup(path), fs)]));
        break;
      case "STA2":
      case "LST2":
        await stream.write(Buffer.concat([id(cmd), statV2Body(fs.lookup(path), fs, 0, inodeOf(fs.normalize(path)))]));
        break;
      case "LIST":
      case "LIS2": {
        const node = fs.lookup(path);
        const entries: [string, FsNode][] = [];
        if (node?.kind === "dir") entries.push([".", node], ["..", node], ...fs.list(path));
        const parts: Buffer[] = [];
        for (const [name, n] of entries) {
          const nameBuf = Buffer.from(name);
          if (cmd === "LIST") parts.push(id("DENT"), statV1Body(n, fs), u32(nameBuf.length), nameBuf);
          else parts.push(id("DNT2"), statV2Body(n, fs, 0, inodeOf(`${path}/${name}`)), u32(nameBuf.length), nameBuf);
        }
        parts.push(id("DONE"), Buffer.alloc(cmd === "LIST" ? 16 : 72));
        await stream.write(Buffer.concat(parts));
        break;
      }
      case "RECV":
      case "RCV2": {
        if (cmd === "RCV2") {
          const setup = await input.readExactly(8);
          const flags = setup.readUInt32LE(4);
          if (flags !== 0) {
            await fail(`compression (flags 0x${flags.toString(16)}) is not supported by this device; retry without compression`);
            return;
          }
        }
        let data: Buffer;
        try {
          data = fs.readFile(path);
        } catch (e) {
          await fail(e instanceof FsError ? `open failed: ${e.reason}` : String(e));
          break;
        }
        for (let off = 0; off < data.length; off += SYNC_DATA_MAX) {
          const chunk = data.subarray(off, Math.min(data.length, off + SYNC_DATA_MAX));
          await stream.write(Buffer.concat([id("DATA"), u32(chunk.length), chunk]));
        }
        await stream.write(Buffer.concat([id("DONE"), u32(0)]));
        break;
      }
      case "SEND":
      case "SND2": {
        let target = path;
        let mode = 0o100644;
        let dryRun = false;
        if (cmd === "SEND") {
          const comma = path.lastIndexOf(",");
          if (comma !== -1) {
            target = path.slice(0, comma);
            mode = Number.parseInt(path.slice(comma + 1), 10) || mode;
          }
        } else {
          const setup = await input.readExactly(12);
          mode = setup.readUInt32LE(4);
          const flags = setup.readUInt32LE(8);
          dryRun = (flags & SEND_V2_FLAG_DRY_RUN) !== 0;
          if ((flags & ~SEND_V2_FLAG_DRY_RUN) !== 0) {
            await fail(`compression (flags 0x${flags.toString(16)}) is not supported by this device; retry without compression`);
            return;
          }
        }
        const chunks: Buffer[] = [];
        let mtime = 0;
        for (;;) {
          const h = await input.readExactly(8);
          const kind = h.toString("latin1", 0, 4);
          const n = h.readUInt32LE(4);
          if (kind === "DATA") {
            if (n > SYNC_DATA_MAX) {
              await fail(`data packet of ${n} bytes exceeds ${SYNC_DATA_MAX}`);
              return;
            }
            chunks.push(await input.readExactly(n));
          } else if (kind === "DONE") {
            mtime = n;
            break;
          } else {
            await fail(`invalid data message '${kind}' during push`);
            return;
          }
        }
        if (!dryRun) {
          try {
            fs.writeFile(target, Buffer.concat(chunks), { mode: mode & 0o7777, mtime, mkdirs: true });
          } catch (e) {
            await fail(e instanceof FsError ? `couldn't create file: ${e.reason}` : String(e));
            break;
          }
        }
        await stream.write(Buffer.concat([id("OKAY"), u32(0)]));
        break;
      }
      default:
        await fail(`unknown sync command '${cmd}'`);
        return;
    }
  }
}
