// The phone's file system, in memory: enough of Android's layout for push/pull, redirects and `ls`, with the shell
// user's permissions (only /sdcard and /data/local/tmp are writable) and generated files such as /proc/uptime.

import { installProcFiles } from "./proc.ts";

export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;

export interface FsNode {
  kind: "file" | "dir";
  mode: number; // permission bits only
  mtime: number; // seconds
  data: Buffer; // files only
  children: Map<string, FsNode>; // dirs only
  /** Files whose content is made when read (/proc). */
  generate?: () => Buffer;
}

export type FsErrno = "ENOENT" | "ENOTDIR" | "EISDIR" | "EEXIST" | "EACCES" | "EROFS";
export const ERRNO: Record<FsErrno, number> = { ENOENT: 2, ENOTDIR: 20, EISDIR: 21, EEXIST: 17, EACCES: 13, EROFS: 30 };
const MESSAGES: Record<FsErrno, string> = {
  EROFS: "Read-only file system",
  ENOENT: "No such file or directory",
  ENOTDIR: "Not a directory",
  EISDIR: "Is a directory",
  EEXIST: "File exists",
  EACCES: "Permission denied",
};

export class FsError extends Error {
  constructor(
    readonly errno: FsErrno,
    readonly path: string,
  ) {
    super(`${path}: ${MESSAGES[errno]}`);
  }
  get reason(): string {
    return MESSAGES[this.errno];
  }
}

/** Where the shell user (uid 2000) may create, change and remove files, as on a phone. */
const WRITABLE_ROOTS = ["/sdcard", "/data/local/tmp"];
/** Mounted read-only on Android (the root file system is part of the system image). */
const READ_ONLY_MOUNTS = ["/system", "/vendor", "/product", "/system_ext", "/odm", "/apex"];
/** Directories the shell user cannot list or read. */
const UNREADABLE = ["/data", "/data/data", "/data/app", "/data/system", "/cache", "/metadata"];

function dir(mode = 0o755): FsNode {
  return { kind: "dir", mode, mtime: Math.floor(Date.now() / 1000), data: Buffer.alloc(0), children: new Map() };
}

export class VirtualFs {
  readonly root = dir();
  /** Wall-clock ms of the last boot; /proc/uptime counts from it. */
  bootedAt = Date.now();

  constructor() {
    for (const p of ["/sdcard/Download", "/sdcard/DCIM", "/sdcard/Pictures", "/sdcard/Documents", "/sdcard/Music", "/sdcard/Movies", "/sdcard/Alarms", "/sdcard/Android", "/data/local/tmp", "/data/data", "/data/app", "/system/bin", "/system/etc", "/proc", "/vendor", "/product", "/storage/emulated", "/dev", "/cache", "/mnt", "/sys", "/apex", "/etc"]) {
      this.mkdirp(p);
    }
    this.root.mode = 0o755;
    this.#ensureDir("/system").children.set("build.prop", this.#file(Buffer.from("ro.build.version.sdk=34\n"), 0o644));
    this.#ensureDir("/data").mode = 0o771;
    this.#ensureDir("/sdcard").mode = 0o770;
    installProcFiles(this, () => (Date.now() - this.bootedAt) / 1000);
  }

  /** `mkdir -p` as the shell user. */
  mkdirs(path: string): FsNode {
    this.#checkWritable(path);
    return this.mkdirp(path);
  }

  /** A read-only file whose content is made on each read (/proc/meminfo, /proc/uptime…). */
  generated(path: string, generate: () => Buffer): void {
    const [parent, name] = this.#split(path);
    const node = this.#file(Buffer.alloc(0), 0o444);
    node.generate = generate;
    this.mkdirp(parent).children.set(name, node);
  }

  /** True when the shell user may create or change files at this path. */
  canWrite(path: string): boolean {
    const p = this.normalize(path);
    return WRITABLE_ROOTS.some((r) => p === r || p.startsWith(r + "/"));
  }

  canRead(path: string): boolean {
    return !UNREADABLE.includes(this.normalize(path));
  }

  /** Normalises a path; /storage/emulated/0 and /storage/self/primary are /sdcard, as on a phone. */
  normalize(path: string, cwd = "/"): string {
    const abs = path.startsWith("/") ? path : `${cwd.replace(/\/$/, "")}/${path}`;
    const parts: string[] = [];
    for (const seg of abs.split("/")) {
      if (!seg || seg === ".") continue;
      if (seg === "..") parts.pop();
      else parts.push(seg);
    }
    let p = "/" + parts.join("/");
    for (const alias of ["/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard"]) {
      if (p === alias || p.startsWith(alias + "/")) p = "/sdcard" + p.slice(alias.length);
    }
    return p;
  }

  #file(data: Buffer, mode = 0o660): FsNode {
    return { kind: "file", mode, mtime: Math.floor(Date.now() / 1000), data, children: new Map() };
  }

  lookup(path: string): FsNode | undefined {
    const p = this.normalize(path);
    let node: FsNode | undefined = this.root;
    for (const seg of p.split("/").filter(Boolean)) {
      if (!node || node.kind !== "dir") return undefined;
      node = node.children.get(seg);
    }
    return node;
  }

  #ensureDir(path: string): FsNode {
    const n = this.lookup(path);
    if (!n) throw new FsError("ENOENT", path);
    if (n.kind !== "dir") throw new FsError("ENOTDIR", path);
    return n;
  }

  #split(path: string): [string, string] {
    const p = this.normalize(path);
    const i = p.lastIndexOf("/");
    return [p.slice(0, i) || "/", p.slice(i + 1)];
  }

  #checkWritable(path: string): void {
    const p = this.normalize(path);
    if (this.canWrite(p)) return;
    const top = "/" + (p.split("/")[1] ?? "");
    // the root file system and the system partitions are read-only mounts; elsewhere the shell user lacks permission
    const readOnly = READ_ONLY_MOUNTS.some((r) => p === r || p.startsWith(r + "/")) || !["/data", "/proc", "/sys", "/dev", "/storage", "/mnt", "/cache"].includes(top) || p === top;
    throw new FsError(readOnly && top !== "/data" ? "EROFS" : "EACCES", path);
  }

  mkdirp(path: string): FsNode {
    let node = this.root;
    for (const seg of this.normalize(path).split("/").filter(Boolean)) {
      let next = node.children.get(seg);
      if (!next) {
        next = dir(0o771);
        node.children.set(seg, next);
      } else if (next.kind !== "dir") throw new FsError("ENOTDIR", path);
      node = next;
    }
    return node;
  }

  mkdir(path: string): void {
    this.#checkWritable(path);
    const [parent, name] = this.#split(path);
    const d = this.#ensureDir(parent);
    if (d.children.has(name)) throw new FsError("EEXIST", path);
    d.children.set(name, dir(0o771));
  }

  readFile(path: string): Buffer {
    const n = this.lookup(path);
    if (!n) throw new FsError(this.canRead(this.#split(path)[0]) ? "ENOENT" : "EACCES", path);
    if (n.kind === "dir") throw new FsError("EISDIR", path);
    return n.generate ? n.generate() : n.data;
  }

  /** Size as stat reports it (generated files report 0, as /proc does). */
  size(n: FsNode): number {
    return n.generate ? 0 : n.data.length;
  }

  writeFile(path: string, data: Buffer, opts: { mode?: number; mtime?: number; append?: boolean; mkdirs?: boolean } = {}): void {
    this.#checkWritable(path);
    const [parent, name] = this.#split(path);
    if (!name) throw new FsError("EISDIR", path);
    const d = opts.mkdirs ? this.mkdirp(parent) : this.#ensureDir(parent);
    const existing = d.children.get(name);
    if (existing?.kind === "dir") throw new FsError("EISDIR", path);
    const body = opts.append && existing ? Buffer.concat([existing.data, data]) : data;
    const node = this.#file(body, opts.mode ?? existing?.mode ?? 0o660);
    if (opts.mtime) node.mtime = opts.mtime;
    d.children.set(name, node);
  }

  remove(path: string, recursive = false): void {
    this.#checkWritable(path);
    const [parent, name] = this.#split(path);
    const d = this.#ensureDir(parent);
    const n = d.children.get(name);
    if (!n) throw new FsError("ENOENT", path);
    if (n.kind === "dir" && !recursive) throw new FsError("EISDIR", path);
    d.children.delete(name);
  }

  list(path: string): [string, FsNode][] {
    if (!this.canRead(path)) throw new FsError("EACCES", path);
    const d = this.#ensureDir(path);
    return [...d.children.entries()].sort(([a], [b]) => a.localeCompare(b));
  }

  fullMode(n: FsNode): number {
    return (n.kind === "dir" ? S_IFDIR : S_IFREG) | n.mode;
  }
}
