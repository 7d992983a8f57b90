// Toybox-like basics agents pipe through: echo, cat, ls, rm, grep, head, tail, getprop…
import { FsError } from "../../device/filesystem.ts";
import type { CommandContext, CommandRegistry } from "../types.ts";

const echo = ({ args, out }: CommandContext) => {
  let a = args;
  let newline = true;
  let escapes = false;
  while (a[0] && /^-[neE]+$/.test(a[0])) {
    if (a[0].includes("n")) newline = false;
    if (a[0].includes("e")) escapes = true;
    a = a.slice(1);
  }
  let s = a.join(" ");
  if (escapes) s = s.replace(/\\n/g, "\n").replace(/\\t/g, "\t");
  out(s + (newline ? "\n" : ""));
  return 0;
};

const cat = ({ args, stdin, out, err, host, shell }: CommandContext) => {
  const files = args.filter((a) => a !== "-");
  if (files.length === 0) {
    out(stdin);
    return 0;
  }
  let status = 0;
  for (const f of files) {
    try {
      out(host.fs.readFile(host.fs.normalize(f, shell.cwd)));
    } catch (e) {
      err(`cat: ${f}: ${(e as FsError).reason ?? "No such file or directory"}\n`);
      status = 1;
    }
  }
  return status;
};

function modeString(kind: "file" | "dir", mode: number): string {
  const bits = "rwxrwxrwx";
  let s = kind === "dir" ? "d" : "-";
  for (let i = 0; i < 9; i++) s += mode & (1 << (8 - i)) ? bits[i] : "-";
  return s;
}

const ls = ({ args, out, err, host, shell }: CommandContext) => {
  const long = args.some((a) => /^-[a-zA-Z]*l/.test(a));
  const all = args.some((a) => /^-[a-zA-Z]*a/.test(a));
  const paths = args.filter((a) => !a.startsWith("-"));
  if (paths.length === 0) paths.push(shell.cwd);
  let status = 0;
  for (const p of paths) {
    const abs = host.fs.normalize(p, shell.cwd);
    const n = host.fs.lookup(abs);
    if (!n) {
      err(`ls: ${p}: No such file or directory\n`);
      status = 1;
      continue;
    }
    const entries = n.kind === "dir" ? host.fs.list(abs) : [[p, n] as const];
    if (paths.length > 1 && n.kind === "dir") out(`${p}:\n`);
    if (long && n.kind === "dir") out(`total ${entries.length * 8}\n`);
    for (const [name, e] of entries) {
      if (!all && name.startsWith(".")) continue;
      if (!long) out(`${name}\n`);
      else {
        const d = new Date(e.mtime * 1000).toISOString();
        out(`${modeString(e.kind, e.mode)} 1 root sdcard_rw ${String(e.data.length).padStart(8)} ${d.slice(0, 10)} ${d.slice(11, 16)} ${name}\n`);
      }
    }
  }
  return status;
};

const rm = ({ args, err, host, shell }: CommandContext) => {
  const recursive = args.some((a) => /^-[a-zA-Z]*[rR]/.test(a));
  const force = args.some((a) => /^-[a-zA-Z]*f/.test(a));
  let status = 0;
  for (const p of args.filter((a) => !a.startsWith("-"))) {
    try {
      host.fs.remove(host.fs.normalize(p, shell.cwd), recursive);
    } catch (e) {
      if (force && (e as FsError).errno === "ENOENT") continue;
      err(`rm: ${p}: ${(e as FsError).reason ?? String(e)}\n`);
      status = 1;
    }
  }
  return status;
};

const mkdir = ({ args, err, host, shell }: CommandContext) => {
  const parents = args.includes("-p");
  let status = 0;
  for (const p of args.filter((a) => !a.startsWith("-"))) {
    try {
      if (parents) host.fs.mkdirs(host.fs.normalize(p, shell.cwd));
      else host.fs.mkdir(host.fs.normalize(p, shell.cwd));
    } catch (e) {
      err(`mkdir: '${p}': ${(e as FsError).reason ?? String(e)}\n`);
      status = 1;
    }
  }
  return status;
};

const touch = ({ args, host, shell }: CommandContext) => {
  for (const p of args.filter((a) => !a.startsWith("-"))) {
    const abs = host.fs.normalize(p, shell.cwd);
    if (!host.fs.lookup(abs)) host.fs.writeFile(abs, Buffer.alloc(0));
  }
  return 0;
};

function inputText(ctx: CommandContext, files: string[]): string | null {
  if (files.length === 0) return ctx.stdin.toString("utf8");
  try {
    return files.map((f) => ctx.host.fs.readFile(ctx.host.fs.normalize(f, ctx.shell.cwd)).toString("utf8")).join("");
  } catch (e) {
    ctx.err(`${ctx.argv[0]}: ${(e as FsError).message}\n`);
    return null;
  }
}

const grep = (ctx: CommandContext) => {
  const flags = new Set<string>();
  const patterns: string[] = [];
  const files: string[] = [];
  const a = ctx.args;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x === "-e") patterns.push(a[++i] ?? "");
    else if (/^-[a-zA-Z]+$/.test(x)) for (const c of x.slice(1)) flags.add(c);
    else if (patterns.length === 0 && !flags.has("e")) patterns.push(x);
    else files.push(x);
  }
  if (patterns.length === 0) {
    ctx.err("usage: grep [-EFHabcdhilnoqrsvwxz] [-e REGEX]... [FILE]...\n");
    return 2;
  }
  const text = inputText(ctx, files);
  if (text === null) return 2;
  const ci = flags.has("i") ? "i" : "";
  const res = patterns.map((p) => {
    if (flags.has("F")) return new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), ci + "g");
    // basic regex: \| means alternation; in -E it is already |
    const src = flags.has("E") ? p : p.replace(/\\\|/g, "|").replace(/\\\(/g, "(").replace(/\\\)/g, ")");
    return new RegExp(src, ci + "g");
  });
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let count = 0;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    let matched = res.some((r) => ((r.lastIndex = 0), r.test(line)));
    if (flags.has("w") && matched) matched = res.some((r) => new RegExp(`\\b(?:${r.source})\\b`, ci).test(line));
    if (flags.has("v")) matched = !matched;
    if (!matched) continue;
    count++;
    if (flags.has("q") || flags.has("c")) continue;
    if (flags.has("o") && !flags.has("v")) {
      for (const r of res) for (const m of line.matchAll(new RegExp(r.source, ci + "g"))) ctx.out(`${m[0]}\n`);
    } else ctx.out(`${flags.has("n") ? `${n + 1}:` : ""}${line}\n`);
  }
  if (flags.has("c")) ctx.out(`${count}\n`);
  return count > 0 ? 0 : 1;
};

function lineCount(args: string[]): { n: number; files: string[] } {
  let n = 10;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-n") n = Number(args[++i]);
    else if (/^-n\d+$/.test(a)) n = Number(a.slice(2));
    else if (/^-\d+$/.test(a)) n = Number(a.slice(1));
    else files.push(a);
  }
  return { n, files };
}

const head = (ctx: CommandContext) => {
  const { n, files } = lineCount(ctx.args);
  const text = inputText(ctx, files);
  if (text === null) return 1;
  const lines = text.split("\n");
  ctx.out(lines.slice(0, n).join("\n") + (lines.length > n ? "\n" : ""));
  return 0;
};

const tail = (ctx: CommandContext) => {
  const { n, files } = lineCount(ctx.args);
  const text = inputText(ctx, files);
  if (text === null) return 1;
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  ctx.out(lines.slice(Math.max(0, lines.length - n)).join("\n") + "\n");
  return 0;
};

const wc = (ctx: CommandContext) => {
  const text = inputText(ctx, ctx.args.filter((a) => !a.startsWith("-")));
  if (text === null) return 1;
  const l = (text.match(/\n/g) ?? []).length;
  if (ctx.args.includes("-l")) ctx.out(`${l}\n`);
  else if (ctx.args.includes("-c")) ctx.out(`${Buffer.byteLength(text)}\n`);
  else ctx.out(`${l} ${text.split(/\s+/).filter(Boolean).length} ${Buffer.byteLength(text)}\n`);
  return 0;
};

const sleep = async ({ args, signal }: CommandContext) => {
  const s = Number(args[0] ?? 0);
  if (!Number.isFinite(s) || s <= 0 || signal.aborted) return 0;
  // the client closing the stream ends the sleep, as SIGHUP would
  await new Promise<void>((resolve) => {
    const t = setTimeout(done, Math.min(s, 3600) * 1000);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
  return signal.aborted ? 130 : 0;
};

const getprop = ({ args, out, host }: CommandContext) => {
  const props = host.phone.props;
  if (args.length === 0) {
    for (const k of Object.keys(props).sort()) out(`[${k}]: [${props[k]}]\n`);
    return 0;
  }
  out(`${props[args[0]!] ?? args[1] ?? ""}\n`);
  return 0;
};

const setprop = ({ args, err }: CommandContext) => {
  err(`Failed to set property '${args[0] ?? ""}' to '${args[1] ?? ""}'.\nSee dmesg for error reason.\n`);
  return 1;
};

const cd = ({ args, err, host, shell }: CommandContext) => {
  const target = host.fs.normalize(args[0] ?? "/", shell.cwd);
  const n = host.fs.lookup(target);
  if (!n || n.kind !== "dir") {
    err(`/system/bin/sh: cd: ${args[0]}: No such file or directory\n`);
    return 2;
  }
  shell.cwd = target;
  return 0;
};

export function registerBasics(r: CommandRegistry): void {
  r.set("echo", echo);
  r.set("cat", cat);
  r.set("ls", ls);
  r.set("rm", rm);
  r.set("mkdir", mkdir);
  r.set("touch", touch);
  r.set("grep", grep);
  r.set("egrep", (ctx) => grep({ ...ctx, args: ["-E", ...ctx.args] }));
  r.set("head", head);
  r.set("tail", tail);
  r.set("wc", wc);
  r.set("sleep", sleep);
  r.set("true", () => 0);
  r.set("false", () => 1);
  r.set("getprop", getprop);
  r.set("setprop", setprop);
  r.set("cd", cd);
  r.set("pwd", ({ out, shell }) => (out(`${shell.cwd}\n`), 0));
  r.set("id", ({ out }) => (out("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats) context=u:r:shell:s0\n"), 0));
  r.set("whoami", ({ out }) => (out("shell\n"), 0));
  r.set("exit", ({ args }) => Number(args[0] ?? 0));
  r.set("which", ({ args, out, shell }) => {
    void shell;
    let status = 0;
    for (const a of args) {
      if (r.has(a)) out(`/system/bin/${a}\n`);
      else status = 1;
    }
    return status;
  });
}

export { FsError };
