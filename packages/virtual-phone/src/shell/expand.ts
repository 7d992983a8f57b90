// Word expansion as sh does it: quotes, $VAR and ${VAR…} forms, $(...) and `...`, $((...)), field splitting on IFS,
// and pathname patterns (* ? [...]) matched against the phone's files.
import { ARITH_BINARY, ARITH_UNARY, nodeType, PARAM_OP, type Node } from "./syntax.ts";
import { SHELL_PID, type Shell } from "./interpreter.ts";

interface Io {
  out(d: Buffer): void;
  err(d: Buffer): void;
  stdin: Buffer;
}

/** A piece of an expanded word: `split` pieces came from unquoted expansions; `field` starts a new field ("$@"). */
interface Piece {
  text: string;
  quoted: boolean;
  split: boolean;
  field?: boolean;
}

export class ShellExpansionError extends Error {
  readonly code = "SHELL_EXPANSION";
}

const byCode = (table: Record<string, number>) => new Map(Object.entries(table).map(([k, v]) => [v, k]));
const PARAM_BY_CODE = byCode(PARAM_OP);
const ARITH_BIN_BY_CODE = byCode(ARITH_BINARY);
const ARITH_UN_BY_CODE = byCode(ARITH_UNARY);

/** A shell pattern (case, ${x%pat}, globs) as a regular expression source. */
export function patternSource(pattern: string, literal: boolean[]): string {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (literal[i]) re += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    else if (c === "*") re += "[\\s\\S]*";
    else if (c === "?") re += "[\\s\\S]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) re += "\\[";
      else {
        const body = pattern.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        re += `[${body}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return re;
}

export class ShellExpander {
  /** Status of the last command substitution, for `x=$(cmd)` whose status is cmd's. */
  substitutionStatus: number | null = null;

  constructor(
    private readonly shell: Shell,
    private readonly capture: (stmts: Node[], io: Io) => Promise<{ text: string; status: number }>,
  ) {}

  /** Words to fields: expansion, field splitting and pathname patterns. */
  async fields(words: Node[], io: Io): Promise<string[]> {
    const out: string[] = [];
    for (const w of words) out.push(...this.#glob(this.#split(await this.#pieces(w, io, false)), w));
    return out;
  }

  /** A word to one string, no splitting (assignments, redirect targets, case words). */
  async string(word: Node, io: Io, heredoc = false): Promise<string> {
    return (await this.#pieces(word, io, heredoc)).map((p) => p.text).join("");
  }

  /** A case pattern as a regular expression; quoted parts match literally. */
  async pattern(word: Node, io: Io): Promise<RegExp> {
    const pieces = await this.#pieces(word, io, false);
    let text = "";
    const literal: boolean[] = [];
    for (const p of pieces) {
      text += p.text;
      for (let i = 0; i < p.text.length; i++) literal.push(p.quoted);
    }
    return new RegExp(`^${patternSource(text, literal)}$`);
  }

  async #pieces(word: Node, io: Io, heredoc: boolean): Promise<Piece[]> {
    const pieces: Piece[] = [];
    for (const part of word.Parts as Node[]) await this.#part(part, io, false, pieces, heredoc);
    return pieces;
  }

  async #part(part: Node, io: Io, quoted: boolean, out: Piece[], heredoc = false): Promise<void> {
    switch (nodeType(part)) {
      case "Lit": {
        const raw = part.Value as string;
        if (heredoc) out.push({ text: raw.replace(/\\([$`\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c)), quoted: true, split: false });
        else if (quoted) out.push({ text: raw.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c)), quoted: true, split: false });
        else {
          // an unquoted backslash quotes the next character
          const chunks = raw.split(/(\\[\s\S])/);
          for (const c of chunks) {
            if (!c) continue;
            if (c.startsWith("\\") && c.length === 2) {
              if (c[1] !== "\n") out.push({ text: c[1]!, quoted: true, split: false });
            } else out.push({ text: c === "~" || c.startsWith("~/") ? (this.shell.vars.get("HOME") ?? "/").replace(/\/$/, "") + c.slice(1) || "/" : c, quoted: false, split: false });
          }
        }
        return;
      }
      case "SglQuoted":
        out.push({ text: part.Dollar ? ansiC(part.Value as string) : (part.Value as string), quoted: true, split: false });
        return;
      case "DblQuoted": {
        const inner = part.Parts as Node[];
        if (inner.length === 0) out.push({ text: "", quoted: true, split: false });
        for (const p of inner) await this.#part(p, io, true, out);
        return;
      }
      case "ParamExp": {
        const name = part.Param.Value as string;
        if ((name === "@" || name === "*") && !part.Exp && !part.Length) {
          const args = this.shell.positional;
          if (quoted && name === "@") args.forEach((a, i) => out.push({ text: a, quoted: true, split: false, field: i > 0 }));
          else if (quoted) out.push({ text: args.join(" "), quoted: true, split: false });
          else out.push({ text: args.join(" "), quoted: false, split: true });
          return;
        }
        out.push({ text: await this.#param(part, io), quoted, split: !quoted });
        return;
      }
      case "CmdSubst": {
        const r = await this.capture(part.Stmts as Node[], io);
        this.substitutionStatus = r.status;
        this.shell.lastStatus = r.status;
        out.push({ text: r.text, quoted, split: !quoted });
        return;
      }
      case "ArithmExp":
        out.push({ text: String(this.arithmetic(part.X as Node, io)), quoted, split: !quoted });
        return;
      default:
        throw new ShellExpansionError(`${nodeType(part)} expansions are not supported by this virtual phone's shell`);
    }
  }

  #value(name: string): string | undefined {
    if (name === "?") return String(this.shell.lastStatus);
    if (name === "$") return String(SHELL_PID);
    if (name === "#") return String(this.shell.positional.length);
    if (name === "0") return this.shell.arg0;
    if (name === "!" || name === "-") return "";
    if (/^\d+$/.test(name)) return this.shell.positional[Number(name) - 1];
    if (name === "@" || name === "*") return this.shell.positional.join(" ");
    if (name === "RANDOM") return String(Math.floor(Math.random() * 32768));
    if (name === "PWD") return this.shell.cwd;
    return this.shell.vars.get(name);
  }

  async #param(pe: Node, io: Io): Promise<string> {
    const name = pe.Param.Value as string;
    const value = this.#value(name);
    if (pe.Length) return String([...(value ?? "")].length);
    if (pe.Repl) {
      const from = await this.pattern(pe.Repl.Orig as Node, io);
      const to = pe.Repl.With ? await this.string(pe.Repl.With as Node, io) : "";
      const re = new RegExp(from.source.slice(1, -1), pe.Repl.All ? "g" : "");
      return (value ?? "").replace(re, () => to);
    }
    if (pe.Slice) {
      const off = this.arithmetic(pe.Slice.Offset as Node, io);
      const len = pe.Slice.Length ? this.arithmetic(pe.Slice.Length as Node, io) : undefined;
      const v = value ?? "";
      const start = off < 0 ? Math.max(0, v.length + off) : off;
      return len === undefined ? v.slice(start) : v.slice(start, start + len);
    }
    if (!pe.Exp) return value ?? "";
    const op = PARAM_BY_CODE.get(pe.Exp.Op as number);
    const arg = async () => (pe.Exp.Word ? this.string(pe.Exp.Word as Node, io) : "");
    const unsetOrEmpty = value === undefined || value === "";
    switch (op) {
      case ":-":
        return unsetOrEmpty ? arg() : value!;
      case "-":
        return value === undefined ? arg() : value;
      case ":=":
      case "=":
        if (op === "=" ? value === undefined : unsetOrEmpty) {
          const v = await arg();
          this.shell.vars.set(name, v);
          return v;
        }
        return value!;
      case ":+":
        return unsetOrEmpty ? "" : arg();
      case "+":
        return value === undefined ? "" : arg();
      case ":?":
      case "?":
        if (op === "?" ? value === undefined : unsetOrEmpty) throw new ShellExpansionError(`${name}: ${(await arg()) || "parameter null or not set"}`);
        return value!;
      case "%":
      case "%%":
      case "#":
      case "##": {
        const v = value ?? "";
        const src = pe.Exp.Word ? (await this.pattern(pe.Exp.Word as Node, io)).source.slice(1, -1) : "";
        const greedy = op === "%%" || op === "##";
        if (op.startsWith("#")) {
          for (let i = greedy ? v.length : 0; greedy ? i >= 0 : i <= v.length; i += greedy ? -1 : 1) if (new RegExp(`^(?:${src})$`).test(v.slice(0, i))) return v.slice(i);
        } else {
          for (let i = greedy ? 0 : v.length; greedy ? i <= v.length : i >= 0; i += greedy ? 1 : -1) if (new RegExp(`^(?:${src})$`).test(v.slice(i))) return v.slice(0, i);
        }
        return v;
      }
      default:
        return value ?? "";
    }
  }

  /** Field splitting on IFS, only for pieces that came from unquoted expansions. */
  #split(pieces: Piece[]): { text: string; literal: boolean[] }[] {
    const ifs = this.shell.vars.get("IFS") ?? " \t\n";
    const fields: { text: string; literal: boolean[] }[] = [];
    let cur = "";
    let lit: boolean[] = [];
    let have = false;
    const push = () => {
      if (have) fields.push({ text: cur, literal: lit });
      cur = "";
      lit = [];
      have = false;
    };
    for (const p of pieces) {
      if (p.field) push();
      if (!p.split || ifs === "") {
        cur += p.text;
        for (let i = 0; i < p.text.length; i++) lit.push(p.quoted);
        have ||= p.quoted || p.text !== "";
        continue;
      }
      const ws = [...ifs].map((c) => c.replace(/[\\\]^-]/g, "\\$&")).join("");
      const parts = p.text.split(new RegExp(`[${ws}]+`));
      parts.forEach((part, i) => {
        if (i > 0) push();
        cur += part;
        for (let k = 0; k < part.length; k++) lit.push(false);
        have ||= part !== "";
      });
    }
    push();
    return fields;
  }

  /** Unquoted * ? [..] in the last path component match files; no match leaves the word as it is, as sh does. */
  #glob(fields: { text: string; literal: boolean[] }[], _word: Node): string[] {
    const out: string[] = [];
    const fs = this.shell.host.fs;
    for (const f of fields) {
      const magic = [...f.text].some((c, i) => !f.literal[i] && (c === "*" || c === "?" || c === "["));
      const slash = f.text.lastIndexOf("/");
      const dirPart = slash >= 0 ? f.text.slice(0, slash) || "/" : "";
      if (!magic || [...dirPart].some((c, i) => !f.literal[i] && (c === "*" || c === "?"))) {
        out.push(f.text);
        continue;
      }
      const base = f.text.slice(slash + 1);
      const re = new RegExp(`^${patternSource(base, f.literal.slice(slash + 1))}$`);
      let matches: string[] = [];
      try {
        const dir = fs.normalize(dirPart || ".", this.shell.cwd);
        matches = fs
          .list(dir)
          .map(([n]) => n)
          .filter((n) => re.test(n) && (base.startsWith(".") || !n.startsWith(".")))
          .map((n) => (slash >= 0 ? `${dirPart === "/" ? "" : dirPart}/${n}` : n));
      } catch {
        matches = [];
      }
      out.push(...(matches.length ? matches : [f.text]));
    }
    return out;
  }

  /** $((...)) and ((...)): integer arithmetic with variables. */
  arithmetic(x: Node, io: Io): number {
    switch (nodeType(x)) {
      case "Word": {
        const text = (x.Parts as Node[]).map((p) => (nodeType(p) === "Lit" ? (p.Value as string) : nodeType(p) === "ParamExp" ? (this.#value(p.Param.Value as string) ?? "") : "")).join("");
        return this.#number(text, io);
      }
      case "ParenArithm":
        return this.arithmetic(x.X as Node, io);
      case "UnaryArithm": {
        const op = ARITH_UN_BY_CODE.get(x.Op as number);
        if (op === "++" || op === "--") {
          const name = this.#name(x.X as Node);
          const old = this.#number(this.shell.vars.get(name) ?? "0", io);
          const now = op === "++" ? old + 1 : old - 1;
          this.shell.vars.set(name, String(now));
          return x.Post ? old : now;
        }
        const v = this.arithmetic(x.X as Node, io);
        return op === "!" ? (v === 0 ? 1 : 0) : op === "-" ? -v : op === "~" ? ~v : v;
      }
      case "BinaryArithm": {
        const op = ARITH_BIN_BY_CODE.get(x.Op as number) ?? "";
        if (op.endsWith("=") && !["==", "!=", "<=", ">="].includes(op)) {
          const name = this.#name(x.X as Node);
          const rhs = this.arithmetic(x.Y as Node, io);
          const old = this.#number(this.shell.vars.get(name) ?? "0", io);
          const v = op === "=" ? rhs : binary(op.slice(0, -1), old, rhs);
          this.shell.vars.set(name, String(v));
          return v;
        }
        if (op === "&&") return this.arithmetic(x.X as Node, io) !== 0 && this.arithmetic(x.Y as Node, io) !== 0 ? 1 : 0;
        if (op === "||") return this.arithmetic(x.X as Node, io) !== 0 || this.arithmetic(x.Y as Node, io) !== 0 ? 1 : 0;
        return binary(op, this.arithmetic(x.X as Node, io), this.arithmetic(x.Y as Node, io));
      }
      default:
        throw new ShellExpansionError(`${nodeType(x)} is not supported in arithmetic by this virtual phone's shell`);
    }
  }

  #name(x: Node): string {
    if (nodeType(x) === "Word" && (x.Parts as Node[]).length === 1 && nodeType(x.Parts[0] as Node) === "Lit") return x.Parts[0].Value as string;
    throw new ShellExpansionError("arithmetic assignment needs a variable name");
  }

  #number(text: string, io: Io, depth = 0): number {
    const t = text.trim();
    if (t === "") return 0;
    if (/^[A-Za-z_]\w*$/.test(t)) return depth > 8 ? 0 : this.#number(this.shell.vars.get(t) ?? "0", io, depth + 1);
    const n = /^0x[0-9a-f]+$/i.test(t) ? Number.parseInt(t, 16) : /^0[0-7]+$/.test(t) ? Number.parseInt(t, 8) : Number(t);
    if (!Number.isInteger(n)) throw new ShellExpansionError(`${t}: bad number`);
    return n;
  }
}

function binary(op: string, a: number, b: number): number {
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
    case "%":
      if (b === 0) throw new ShellExpansionError("divisor by zero");
      return op === "/" ? Math.trunc(a / b) : a % b;
    case "**":
      return a ** b;
    case "==":
      return a === b ? 1 : 0;
    case "!=":
      return a !== b ? 1 : 0;
    case "<":
      return a < b ? 1 : 0;
    case "<=":
      return a <= b ? 1 : 0;
    case ">":
      return a > b ? 1 : 0;
    case ">=":
      return a >= b ? 1 : 0;
    case "&":
      return a & b;
    case "|":
      return a | b;
    case "^":
      return a ^ b;
    case "<<":
      return a << b;
    case ">>":
      return a >> b;
    default:
      throw new ShellExpansionError(`arithmetic operator ${op} is not supported`);
  }
}

/** $'...' strings: C escapes. */
export function ansiC(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e[0] === "x") return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(Number.parseInt(e, 8));
    return { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"' }[e] ?? `\\${e}`;
  });
}
