// The phone's file system, in memory: enough of Android's layout for push/pull, redirects and `ls`.

export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;

export interface FsNode {
  kind: "file" | "dir";
  mode: number; // permission bits only
  mtime: number; // seconds
  data: Buffer; // files only
  children: Map<string, FsNode>; // dirs only
}

export type FsErrno = "ENOENT" | "ENOTDIR" | "EISDIR" | "EEXIST" | "EACCES";
export const ERRNO: Record<FsErrno, number> = { ENOENT: 2, ENOTDIR: 20, EISDIR: 21, EEXIST: 17, EACCES: 13 };
const MESSAGES: Record<FsErrno, string> = {
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

const READ_ONLY_ROOTS = ["/system", "/vendor", "/proc"];

function dir(mode = 0o755): FsNode {
  return { kind: "dir", mode, mtime: Math.floor(Date.now() / 1000), data: Buffer.alloc(0), children: new Map() };
}

export class VirtualFs {
  readonly root = dir();

  constructor() {
    for (const p of ["/sdcard/Download", "/sdcard/DCIM", "/sdcard/Pictures", "/sdcard/Documents", "/data/local/tmp", "/system/bin", "/proc", "/vendor", "/storage/emulated"]) {
      this.mkdirp(p);
    }
    this.#ensureDir("/system").children.set("build.prop", this.#file(Buffer.from("ro.build.version.sdk=34\n"), 0o644));
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
    if (READ_ONLY_ROOTS.some((r) => p === r || p.startsWith(r + "/"))) throw new FsError("EACCES", path);
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
    if (!n) throw new FsError("ENOENT", path);
    if (n.kind === "dir") throw new FsError("EISDIR", path);
    return n.data;
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
    const d = this.#ensureDir(path);
    return [...d.children.entries()].sort(([a], [b]) => a.localeCompare(b));
  }

  fullMode(n: FsNode): number {
    return (n.kind === "dir" ? S_IFDIR : S_IFREG) | n.mode;
  }
}
