// toybox `test` / `[` and `printf`, the two applets scripts lean on most.
import type { CommandContext, CommandRegistry } from "../types.ts";

class TestSyntaxError extends Error {}

/** POSIX test: unary file and string tests, string and integer comparisons, ! -a -o and parentheses. */
function evaluateTest(ctx: CommandContext, args: string[]): boolean {
  const fs = ctx.host.fs;
  const node = (p: string) => fs.lookup(fs.normalize(p, ctx.shell.cwd));
  const int = (s: string) => {
    if (!/^\s*-?\d+\s*$/.test(s)) throw new TestSyntaxError(`${s}: bad number`);
    return Number(s);
  };
  let i = 0;
  const primary = (): boolean => {
    const a = args[i];
    if (a === undefined) throw new TestSyntaxError("argument expected");
    if (a === "!") {
      i++;
      return !primary();
    }
    if (a === "(" && args.length - i > 2) {
      i++;
      const v = or();
      if (args[i] !== ")") throw new TestSyntaxError("')' expected");
      i++;
      return v;
    }
    const op = args[i + 1];
    const b = args[i + 2];
    if (op !== undefined && b !== undefined && ["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"].includes(op)) {
      i += 3;
      switch (op) {
        case "=":
        case "==":
          return a === b;
        case "!=":
          return a !== b;
        case "<":
          return a < b;
        case ">":
          return a > b;
        case "-eq":
          return int(a) === int(b);
        case "-ne":
          return int(a) !== int(b);
        case "-lt":
          return int(a) < int(b);
        case "-le":
          return int(a) <= int(b);
        case "-gt":
          return int(a) > int(b);
        case "-ge":
          return int(a) >= int(b);
        case "-nt":
          return (node(a)?.mtime ?? -1) > (node(b)?.mtime ?? -1);
        case "-ot":
          return (node(a)?.mtime ?? Infinity) < (node(b)?.mtime ?? Infinity);
        default:
          return fs.normalize(a, ctx.shell.cwd) === fs.normalize(b, ctx.shell.cwd) && node(a) !== undefined;
      }
    }
    if (/^-[a-zA-Z]$/.test(a) && op !== undefined) {
      i += 2;
      const n = node(op);
      switch (a) {
        case "-e":
          return n !== undefined;
        case "-f":
          return n?.kind === "file";
        case "-d":
          return n?.kind === "dir";
        case "-s":
          return n?.kind === "file" && n.data.length > 0;
        case "-r":
          return n !== undefined && fs.canRead(fs.normalize(op, ctx.shell.cwd));
        case "-w":
          return n !== undefined && fs.canWrite(fs.normalize(op, ctx.shell.cwd));
        case "-x":
          return n !== undefined && (n.kind === "dir" || (n.mode & 0o111) !== 0);
        case "-L":
        case "-h":
        case "-p":
        case "-S":
        case "-b":
        case "-c":
        case "-u":
        case "-g":
        case "-k":
          return false;
        case "-z":
          return op.length === 0;
        case "-n":
          return op.length > 0;
        case "-t":
          return false;
        default:
          throw new TestSyntaxError(`${a}: unknown operand`);
      }
    }
    i++;
    return a.length > 0;
  };
  const and = (): boolean => {
    let v = primary();
    while (args[i] === "-a") {
      i++;
      const w = primary();
      v = v && w;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (args[i] === "-o") {
      i++;
      const w = and();
      v = v || w;
    }
    return v;
  };
  if (args.length === 0) return false;
  const v = or();
  if (i < args.length) throw new TestSyntaxError(`${args[i]}: unknown operand`);
  return v;
}

const test = (ctx: CommandContext): number => {
  let args = ctx.args;
  if (ctx.argv[0] === "[") {
    if (args.at(-1) !== "]") {
      ctx.err("[: missing ]\n");
      return 2;
    }
    args = args.slice(0, -1);
  }
  try {
    return evaluateTest(ctx, args) ? 0 : 1;
  } catch (e) {
    if (!(e instanceof TestSyntaxError)) throw e;
    ctx.err(`${ctx.argv[0]}: ${e.message}\n`);
    return 2;
  }
};

/** Backslash escapes of printf formats and %b arguments. */
function unescape(s: string, forB = false): { text: string; stop: boolean } {
  let stop = false;
  const text = s.replace(/\\(0[0-7]{0,3}|[0-7]{1,3}|x[0-9a-fA-F]{1,2}|c|.)/g, (_m, e: string) => {
    if (stop) return "";
    if (e === "c" && forB) {
      stop = true;
      return "";
    }
    if (e[0] === "x") return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(Number.parseInt(forB && e[0] === "0" ? e.slice(1) || "0" : e, 8));
    return { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v", e: "\x1b", "\\": "\\", '"': '"', "'": "'" }[e] ?? `\\${e}`;
  });
  return { text, stop };
}

const printf = (ctx: CommandContext): number => {
  const [format, ...rest] = ctx.args;
  if (format === undefined) {
    ctx.err("printf: needs 1 argument\n");
    return 1;
  }
  const fmt = unescape(format).text;
  let args = rest;
  let status = 0;
  let out = "";
  const num = (s: string | undefined): number => {
    if (s === undefined || s === "") return 0;
    if (/^['"]/.test(s)) return s.codePointAt(1) ?? 0;
    const n = /^[-+]?0x[0-9a-f]+$/i.test(s) ? Number.parseInt(s, 16) : Number(s);
    if (Number.isNaN(n)) {
      ctx.err(`printf: invalid number '${s}'\n`);
      status = 1;
      return 0;
    }
    return n;
  };
  do {
    let used = 0;
    let stopAll = false;
    out += fmt.replace(/%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfFgGcsb%])/g, (_m, flags: string, widthS: string | undefined, precS: string | undefined, conv: string) => {
      if (stopAll) return "";
      if (conv === "%") return "%";
      const next = () => args[used++];
      const width = widthS === "*" ? num(next()) : widthS ? Number(widthS) : 0;
      const prec = precS === "*" ? num(next()) : precS !== undefined ? Number(precS) : undefined;
      let s: string;
      switch (conv) {
        case "s":
          s = next() ?? "";
          if (prec !== undefined) s = s.slice(0, prec);
          break;
        case "b": {
          const r = unescape(next() ?? "", true);
          s = r.text;
          if (r.stop) stopAll = true;
          break;
        }
        case "c":
          s = (next() ?? "").slice(0, 1);
          break;
        case "d":
        case "i":
          s = String(Math.trunc(num(next())));
          if (flags.includes("+") && !s.startsWith("-")) s = "+" + s;
          break;
        case "u":
          s = String(Math.trunc(num(next())) >>> 0);
          break;
        case "o":
          s = Math.trunc(num(next())).toString(8);
          break;
        case "x":
        case "X":
          s = (Math.trunc(num(next())) >>> 0).toString(16);
          if (conv === "X") s = s.toUpperCase();
          break;
        case "e":
        case "E":
          s = num(next()).toExponential(prec ?? 6).replace(/e([+-])(\d)$/, "e$10$2");
          if (conv === "E") s = s.toUpperCase();
          break;
        case "g":
        case "G":
          s = String(Number(num(next()).toPrecision(prec || 6)));
          break;
        default:
          s = num(next()).toFixed(prec ?? 6);
      }
      if (s.length < width) {
        if (flags.includes("-")) s = s.padEnd(width);
        else if (flags.includes("0") && /[diouxXeEfFgG]/.test(conv)) s = s.startsWith("-") ? "-" + s.slice(1).padStart(width - 1, "0") : s.padStart(width, "0");
        else s = s.padStart(width);
      }
      return s;
    });
    if (stopAll) break;
    args = args.slice(used);
    if (used === 0) break;
  } while (args.length > 0);
  ctx.out(out);
  return status;
};

export function registerTestPrintf(r: CommandRegistry): void {
  r.set("test", test);
  r.set("[", test);
  r.set("printf", printf);
}
