// Runs a parsed command line against the registered commands, like Android's /system/bin/sh would.
import { FsError } from "../device/filesystem.ts";
import { parseCommandLine, ShellSyntaxError, splitFirst, type SimpleCommand } from "./parse.ts";
import type { CommandContext, CommandRegistry, ShellHost } from "./types.ts";

export interface ShellSinks {
  out(data: Buffer): void;
  err(data: Buffer): void;
}

const toBuf = (d: string | Buffer) => (typeof d === "string" ? Buffer.from(d, "utf8") : d);

export class Shell {
  cwd = "/";
  lastStatus = 0;
  constructor(
    private readonly host: ShellHost,
    private readonly commands: CommandRegistry,
  ) {}

  /** Runs one command line; returns the exit status. */
  async run(line: string, sinks: ShellSinks, stdin: Buffer = Buffer.alloc(0)): Promise<number> {
    try {
      parseCommandLine(line); // syntax check of the whole line first, as sh does
    } catch (e) {
      if (e instanceof ShellSyntaxError) {
        sinks.err(Buffer.from(`/system/bin/sh: ${e.message}\n`));
        return (this.lastStatus = 2);
      }
      throw e;
    }
    let rest: string | null = line;
    let op: ";" | "&&" | "||" = ";";
    let status = 0;
    while (rest !== null) {
      const split = splitFirst(rest);
      const head = split ? split.head : rest;
      const skip = (op === "&&" && status !== 0) || (op === "||" && status === 0);
      if (!skip && head.trim()) status = await this.#runList(head, sinks, stdin);
      op = split?.op ?? ";";
      rest = split ? split.rest : null;
    }
    return status;
  }

  async #runList(line: string, sinks: ShellSinks, stdin: Buffer): Promise<number> {
    let list;
    try {
      list = parseCommandLine(line, { "?": String(this.lastStatus), HOME: "/", PATH: "/system/bin:/system/xbin", EXTERNAL_STORAGE: "/sdcard", ANDROID_DATA: "/data" });
    } catch (e) {
      if (e instanceof ShellSyntaxError) {
        sinks.err(Buffer.from(`/system/bin/sh: ${e.message}\n`));
        return (this.lastStatus = 2);
      }
      throw e;
    }
    let status = 0;
    for (const item of list) {
      if (item.op === "&&" && status !== 0) continue;
      if (item.op === "||" && status === 0) continue;
      let input = stdin;
      for (let i = 0; i < item.pipeline.length; i++) {
        const last = i === item.pipeline.length - 1;
        const captured: Buffer[] = [];
        const out = last ? sinks.out : (d: Buffer) => void captured.push(d);
        status = await this.#runSimple(item.pipeline[i]!, input, { out, err: sinks.err });
        input = Buffer.concat(captured);
      }
      this.lastStatus = status;
    }
    return status;
  }

  async #runSimple(cmd: SimpleCommand, stdin: Buffer, sinks: ShellSinks): Promise<number> {
    const fs = this.host.fs;
    let out = sinks.out;
    let err = sinks.err;
    const files: { path: string; append: boolean; data: Buffer[] }[] = [];
    for (const r of cmd.redirects) {
      if (r.op === "<") {
        try {
          stdin = fs.readFile(fs.normalize(r.target, this.cwd));
        } catch (e) {
          sinks.err(Buffer.from(`/system/bin/sh: ${r.target}: ${(e as FsError).reason ?? "No such file or directory"}\n`));
          return 1;
        }
      } else if (r.op === ">&") {
        if (r.fd === 2 && r.target === "1") err = out;
        else if (r.fd === 1 && r.target === "2") out = err;
      } else if (r.target === "/dev/null") {
        if (r.fd === 2) err = () => {};
        else out = () => {};
      } else {
        const file = { path: fs.normalize(r.target, this.cwd), append: r.op === ">>", data: [] as Buffer[] };
        files.push(file);
        const sink = (d: Buffer) => void file.data.push(d);
        if (r.fd === 2) err = sink;
        else out = sink;
      }
    }
    // Create redirect targets first, as sh does, so `cmd > f` fails before running when f cannot be written.
    for (const f of files) {
      try {
        fs.writeFile(f.path, Buffer.alloc(0), { append: true });
        if (!f.append) fs.writeFile(f.path, Buffer.alloc(0));
      } catch (e) {
        sinks.err(Buffer.from(`/system/bin/sh: can't create ${f.path}: ${(e as FsError).reason ?? String(e)}\n`));
        return 1;
      }
    }
    let status = 0;
    if (cmd.argv.length > 0) {
      const name = cmd.argv[0]!;
      const base = name.includes("/") ? name.slice(name.lastIndexOf("/") + 1) : name;
      const impl = this.commands.get(base);
      if (!impl || (name.includes("/") && !/^\/system\/(x?bin)\//.test(name))) {
        err(Buffer.from(`/system/bin/sh: ${name}: inaccessible or not found\n`));
        status = 127;
      } else {
        const ctx: CommandContext = {
          argv: cmd.argv,
          args: cmd.argv.slice(1),
          stdin,
          out: (d) => out(toBuf(d)),
          err: (d) => err(toBuf(d)),
          host: this.host,
          shell: this,
        };
        try {
          await this.host.beforeCommand?.(cmd.argv);
          status = await impl(ctx);
        } catch (e) {
          if (e instanceof FsError) {
            err(Buffer.from(`${base}: ${e.message}\n`));
            status = 1;
          } else if ((e as { code?: string }).code === "INJECTED_FAULT") {
            err(Buffer.from(`${(e as Error).message}\n`));
            status = 1;
          } else {
            err(Buffer.from(`${base}: ${(e as Error).message}\n`));
            status = 255;
          }
        }
      }
    }
    for (const f of files) fs.writeFile(f.path, Buffer.concat(f.data), { append: true });
    return status;
  }
}
