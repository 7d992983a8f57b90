// Runs shell scripts the way Android's /system/bin/sh (mksh) does, over the phone's commands: variables and export,
// exec, if/while/until/for/case, functions, $(...), $((...)), pipes, && || ;, redirects, here-documents and here-strings.
// Hand-written on purpose: no npm package interprets sh over an in-memory device; parsing is mvdan/sh's (syntax.ts).
import { FsError } from "../device/filesystem.ts";
import { ShellExpander, ShellExpansionError } from "./expand.ts";
import { startCommand } from "./running.ts";
import { nodeType, OP, parseScript, REDIRECT, CASE_FALLTHROUGH, ShellSyntaxError, TEST_BINARY, TEST_UNARY, type Node } from "./syntax.ts";
import type { CommandContext, CommandRegistry, ShellHost } from "./types.ts";

export { ShellSyntaxError };

export interface ShellSinks {
  out(data: Buffer): void;
  err(data: Buffer): void;
}

interface Io extends ShellSinks {
  stdin: Buffer;
}

const toBuf = (d: string | Buffer) => (typeof d === "string" ? Buffer.from(d, "utf8") : d);
const EMPTY = Buffer.alloc(0);

/** `exit`, `exec` and the end of the stream unwind the whole script. */
class ExitSignal {
  constructor(readonly status: number) {}
}
class LoopSignal {
  constructor(
    readonly kind: "break" | "continue",
    public levels: number,
  ) {}
}
class ReturnSignal {
  constructor(readonly status: number) {}
}

export const SHELL_PID = 8123;
const TEST_BINARY_BY_CODE = new Map(Object.entries(TEST_BINARY).map(([k, v]) => [v, k]));
const TEST_UNARY_BY_CODE = new Map(Object.entries(TEST_UNARY).map(([k, v]) => [v, k]));

export class Shell {
  cwd = "/";
  lastStatus = 0;
  readonly vars = new Map<string, string>();
  readonly exported = new Set<string>();
  positional: string[] = [];
  arg0 = "/system/bin/sh";
  readonly functions = new Map<string, Node>();
  /** Aborts running commands (sleep, streaming logcat, loops) when the client goes away. */
  signal: AbortSignal = new AbortController().signal;
  readonly #expander: ShellExpander;

  constructor(
    readonly host: ShellHost,
    readonly commands: CommandRegistry,
  ) {
    const env: Record<string, string> = { HOME: "/", PATH: "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin", EXTERNAL_STORAGE: "/sdcard", ANDROID_DATA: "/data", ANDROID_ROOT: "/system", ANDROID_STORAGE: "/storage", HOSTNAME: "localhost", USER: "shell", LOGNAME: "shell", SHELL: "/bin/sh", TMPDIR: "/data/local/tmp", TERM: "dumb", IFS: " \t\n" };
    for (const [k, v] of Object.entries(env)) {
      this.vars.set(k, v);
      if (k !== "IFS") this.exported.add(k);
    }
    this.#expander = new ShellExpander(this, (stmts, io) => this.#capture(stmts, io));
  }

  /** A subshell: same variables, functions and directory; changes stay inside it. */
  child(): Shell {
    const s = new Shell(this.host, this.commands);
    s.cwd = this.cwd;
    s.lastStatus = this.lastStatus;
    s.vars.clear();
    for (const [k, v] of this.vars) s.vars.set(k, v);
    s.exported.clear();
    for (const k of this.exported) s.exported.add(k);
    s.positional = [...this.positional];
    s.arg0 = this.arg0;
    for (const [k, v] of this.functions) s.functions.set(k, v);
    s.signal = this.signal;
    return s;
  }

  /** The environment a command sees: exported variables. */
  environment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const k of this.exported) if (this.vars.has(k)) env[k] = this.vars.get(k)!;
    return env;
  }

  /** Runs a script or command line; returns the exit status. */
  async run(script: string, sinks: ShellSinks, stdin: Buffer = EMPTY): Promise<number> {
    let stmts: Node[];
    try {
      stmts = parseScript(script);
    } catch (e) {
      if (e instanceof ShellSyntaxError) {
        sinks.err(Buffer.from(`/system/bin/sh: ${e.message}\n`));
        return (this.lastStatus = 2);
      }
      throw e;
    }
    try {
      return await this.#stmts(stmts, { ...sinks, stdin });
    } catch (e) {
      if (e instanceof ExitSignal) return (this.lastStatus = e.status);
      if (e instanceof LoopSignal) return this.lastStatus;
      if (e instanceof ReturnSignal) return (this.lastStatus = e.status);
      throw e;
    }
  }

  async #stmts(stmts: Node[], io: Io): Promise<number> {
    let status = 0;
    // a closed stream does not stop a plain sequence (`exec-in cat > f` runs after the host has closed); loops,
    // sleep and streaming commands stop on the signal
    for (const s of stmts) status = await this.#stmt(s, io);
    return status;
  }

  async #stmt(stmt: Node, io: Io): Promise<number> {
    let status: number;
    try {
      const redirected = await this.#redirect(stmt.Redirs as Node[], io);
      if (typeof redirected === "number") status = redirected;
      else {
        try {
          status = stmt.Cmd ? await this.#cmd(stmt.Cmd as Node, redirected.io) : 0;
        } finally {
          redirected.flush();
        }
      }
    } catch (e) {
      if (!(e instanceof ShellExpansionError || e instanceof ShellSyntaxError)) throw e;
      io.err(Buffer.from(`/system/bin/sh: ${e.message}\n`));
      status = e instanceof ShellSyntaxError ? 2 : 1;
    }
    if (stmt.Negated) status = status === 0 ? 1 : 0;
    this.lastStatus = status;
    return status;
  }

  async #cmd(cmd: Node, io: Io): Promise<number> {
    switch (nodeType(cmd)) {
      case "CallExpr":
        return this.#call(cmd, io);
      case "BinaryCmd":
        return this.#binary(cmd, io);
      case "Block":
        return this.#stmts(cmd.Stmts as Node[], io);
      case "Subshell":
        return this.child().#subshell(cmd.Stmts as Node[], io);
      case "IfClause":
        return this.#if(cmd, io);
      case "WhileClause":
        return this.#while(cmd, io);
      case "ForClause":
        return this.#for(cmd, io);
      case "CaseClause":
        return this.#case(cmd, io);
      case "FuncDecl":
        this.functions.set(cmd.Name.Value as string, cmd.Body as Node);
        return 0;
      case "DeclClause":
        return this.#declare(cmd, io);
      case "TestClause":
        return (await this.#test(cmd.X as Node, io)) ? 0 : 1;
      case "ArithmCmd":
        return this.#expander.arithmetic(cmd.X as Node, io) !== 0 ? 0 : 1;
      default:
        io.err(Buffer.from(`/system/bin/sh: ${nodeType(cmd)}: not supported by this virtual phone's shell; use POSIX sh syntax\n`));
        return 2;
    }
  }

  /** `[[ … ]]`: && || ! and parentheses here, == and != as patterns, every other operator as `test` has it. */
  async #test(x: Node, io: Io): Promise<boolean> {
    const t = nodeType(x);
    if (t === "ParenTest") return this.#test(x.X as Node, io);
    if (t === "Word") return (await this.#expander.string(x, io)) !== "";
    const run = async (args: string[]) => (await this.command(["test", ...args], { ...io, out: () => {} })) === 0;
    if (t === "UnaryTest") {
      const op = TEST_UNARY_BY_CODE.get(x.Op as number) ?? "";
      if (op === "!") return !(await this.#test(x.X as Node, io));
      return run([op, await this.#expander.string(x.X as Node, io)]);
    }
    const op = TEST_BINARY_BY_CODE.get(x.Op as number) ?? "";
    if (op === "&&") return (await this.#test(x.X as Node, io)) && this.#test(x.Y as Node, io);
    if (op === "||") return (await this.#test(x.X as Node, io)) || this.#test(x.Y as Node, io);
    const left = await this.#expander.string(x.X as Node, io);
    if (op === "==" || op === "=" || op === "!=") {
      const matches = (await this.#expander.pattern(x.Y as Node, io)).test(left);
      return op === "!=" ? !matches : matches;
    }
    return run([left, op, await this.#expander.string(x.Y as Node, io)]);
  }

  async #subshell(stmts: Node[], io: Io): Promise<number> {
    try {
      return await this.#stmts(stmts, io);
    } catch (e) {
      if (e instanceof ExitSignal) return e.status;
      throw e;
    }
  }

  async #binary(cmd: Node, io: Io): Promise<number> {
    if (cmd.Op === OP.and) {
      const s = await this.#stmt(cmd.X as Node, io);
      return s === 0 ? this.#stmt(cmd.Y as Node, io) : s;
    }
    if (cmd.Op === OP.or) {
      const s = await this.#stmt(cmd.X as Node, io);
      return s !== 0 ? this.#stmt(cmd.Y as Node, io) : s;
    }
    // a pipe: each stage runs to its end and hands its output to the next (a subshell each, as in mksh but the last)
    const captured: Buffer[] = [];
    await this.child().#subshell([cmd.X as Node], { ...io, out: (d) => void captured.push(d) });
    return this.#stmt(cmd.Y as Node, { ...io, stdin: Buffer.concat(captured) });
  }

  async #if(cmd: Node, io: Io): Promise<number> {
    let clause: Node | null = cmd;
    while (clause) {
      const cond = clause.Cond as Node[];
      if (cond.length === 0) return this.#stmts(clause.Then as Node[], io); // the final else
      if ((await this.#stmts(cond, io)) === 0) return this.#stmts(clause.Then as Node[], io);
      clause = (clause.Else as Node | null) ?? null;
    }
    return 0;
  }

  async #loopBody(stmts: Node[], io: Io): Promise<"break" | "continue" | number> {
    try {
      return await this.#stmts(stmts, io);
    } catch (e) {
      if (!(e instanceof LoopSignal)) throw e;
      if (e.levels > 1) {
        e.levels--;
        throw e;
      }
      return e.kind;
    }
  }

  async #while(cmd: Node, io: Io): Promise<number> {
    let status = 0;
    for (;;) {
      if (this.signal.aborted) throw new ExitSignal(130);
      const c = await this.#stmts(cmd.Cond as Node[], io);
      if (cmd.Until ? c === 0 : c !== 0) break;
      const r = await this.#loopBody(cmd.Do as Node[], io);
      if (r === "break") break;
      if (typeof r === "number") status = r;
      await new Promise((res) => setImmediate(res)); // a busy loop must not starve the phone
    }
    return status;
  }

  async #for(cmd: Node, io: Io): Promise<number> {
    const loop = cmd.Loop as Node;
    if (nodeType(loop) !== "WordIter") {
      io.err(Buffer.from("/system/bin/sh: C-style for loops are not supported by this virtual phone's shell; use for NAME in WORDS\n"));
      return 2;
    }
    const name = loop.Name.Value as string;
    const items = (loop.Items as Node[]).length ? await this.#expander.fields(loop.Items as Node[], io) : [...this.positional];
    let status = 0;
    for (const item of items) {
      if (this.signal.aborted) throw new ExitSignal(130);
      this.vars.set(name, item);
      const r = await this.#loopBody(cmd.Do as Node[], io);
      if (r === "break") break;
      if (typeof r === "number") status = r;
    }
    return status;
  }

  async #case(cmd: Node, io: Io): Promise<number> {
    const word = await this.#expander.string(cmd.Word as Node, io);
    const items = cmd.Items as Node[];
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      for (const p of item.Patterns as Node[]) {
        if (!(await this.#expander.pattern(p, io)).test(word)) continue;
        let status = await this.#stmts(item.Stmts as Node[], io);
        // `;&` falls through into the next branch
        while (items[i]!.Op === CASE_FALLTHROUGH && i + 1 < items.length) status = await this.#stmts(items[++i]!.Stmts as Node[], io);
        return status;
      }
    }
    return 0;
  }

  async #declare(cmd: Node, io: Io): Promise<number> {
    const variant = cmd.Variant.Value as string;
    const names: string[] = [];
    for (const a of cmd.Args as Node[]) {
      if (a.Naked) {
        // `export NAME` or `export $VAR`
        for (const n of a.Value ? await this.#expander.fields([a.Value as Node], io) : [a.Name.Value as string]) names.push(n);
        continue;
      }
      const name = a.Name.Value as string;
      this.vars.set(name, a.Value ? await this.#expander.string(a.Value as Node, io) : "");
      names.push(name);
    }
    if (variant === "export") {
      if ((cmd.Args as Node[]).length === 0) for (const [k, v] of Object.entries(this.environment())) io.out(Buffer.from(`export ${k}=${shellQuote(v)}\n`));
      for (const n of names) this.exported.add(n);
    }
    return 0;
  }

  async #call(cmd: Node, io: Io): Promise<number> {
    const assigns = cmd.Assigns as Node[];
    this.#expander.substitutionStatus = null;
    const argv = await this.#expander.fields(cmd.Args as Node[], io);
    const values: [string, string][] = [];
    for (const a of assigns) values.push([a.Name.Value as string, a.Value ? await this.#expander.string(a.Value as Node, io) : ""]);
    if (argv.length === 0) {
      for (const [k, v] of values) this.vars.set(k, v);
      return this.#expander.substitutionStatus ?? 0;
    }
    return this.command(argv, io, Object.fromEntries(values));
  }

  /** Runs one command by name: shell builtins, functions, then the phone's commands. */
  async command(argv: string[], io: Io, env: Record<string, string> = {}): Promise<number> {
    const name = argv[0]!;
    const args = argv.slice(1);
    switch (name) {
      case ":":
        return 0;
      case "exit":
        throw new ExitSignal(args[0] === undefined ? this.lastStatus : Number(args[0]) & 0xff);
      case "exec":
        if (args.length === 0) return 0;
        throw new ExitSignal(await this.command(args, io, env));
      case "return":
        throw new ReturnSignal(args[0] === undefined ? this.lastStatus : Number(args[0]) & 0xff);
      case "break":
      case "continue":
        throw new LoopSignal(name, Math.max(1, Number(args[0] ?? 1) || 1));
      case "export":
      case "readonly":
      case "local":
      case "typeset":
        for (const a of args) {
          const eq = a.indexOf("=");
          const k = eq >= 0 ? a.slice(0, eq) : a;
          if (eq >= 0) this.vars.set(k, a.slice(eq + 1));
          if (name === "export") this.exported.add(k);
        }
        return 0;
      case "unset":
        for (const a of args.filter((x) => !x.startsWith("-"))) {
          this.vars.delete(a);
          this.exported.delete(a);
          this.functions.delete(a);
        }
        return 0;
      case "set":
        if (args[0] === "--") this.positional = args.slice(1);
        else if (args.length === 0) for (const [k, v] of [...this.vars].sort()) io.out(Buffer.from(`${k}=${shellQuote(v)}\n`));
        return 0;
      case "shift": {
        const n = Number(args[0] ?? 1);
        if (n > this.positional.length) return 1;
        this.positional = this.positional.slice(n);
        return 0;
      }
      case "eval":
        return this.#stmts(this.#parseOrThrow(args.join(" ")), io);
      case ".":
      case "source": {
        const path = this.host.fs.normalize(args[0] ?? "", this.cwd);
        let text: string;
        try {
          text = this.host.fs.readFile(path).toString("utf8");
        } catch (e) {
          io.err(Buffer.from(`/system/bin/sh: .: ${args[0] ?? ""}: ${(e as FsError).reason ?? String(e)}\n`));
          return 1;
        }
        return this.#stmts(this.#parseOrThrow(text), io);
      }
      case "read":
        return this.#read(args, io);
      case "wait":
      case "trap":
        return 0;
      case "command":
        if (args[0] === "-v" || args[0] === "-V") return this.#which(args.slice(1), io);
        return args.length ? this.command(args, io, env) : 0;
      case "type":
        return this.#which(args, io, true);
      case "sh":
      case "/system/bin/sh":
      case "/bin/sh":
      case "mksh":
        return this.#sh(args, io, env);
    }
    const fn = this.functions.get(name);
    if (fn) {
      const saved = this.positional;
      this.positional = args;
      try {
        return await this.#stmt(fn, io);
      } catch (e) {
        if (e instanceof ReturnSignal) return e.status;
        throw e;
      } finally {
        this.positional = saved;
      }
    }
    return this.#external(argv, io, env);
  }

  #parseOrThrow(src: string): Node[] {
    return parseScript(src);
  }

  #which(names: string[], io: Io, verbose = false): number {
    let status = 0;
    for (const n of names) {
      if (this.functions.has(n)) io.out(Buffer.from(verbose ? `${n} is a function\n` : `${n}\n`));
      else if (["exit", "exec", "export", "unset", "set", "shift", "eval", ".", "read", "cd", "return", "break", "continue", ":"].includes(n)) io.out(Buffer.from(verbose ? `${n} is a shell builtin\n` : `${n}\n`));
      else if (this.commands.has(n)) io.out(Buffer.from(verbose ? `${n} is a tracked alias for /system/bin/${n}\n` : `/system/bin/${n}\n`));
      else {
        if (verbose) io.err(Buffer.from(`${n} not found\n`));
        status = 1;
      }
    }
    return status;
  }

  /** How far `read` has consumed each stdin buffer, so `… | while read line` walks the lines. */
  readonly #readOffsets = new WeakMap<Buffer, number>();

  #read(args: string[], io: Io): number {
    const names = args.filter((a) => !a.startsWith("-"));
    const offset = this.#readOffsets.get(io.stdin) ?? 0;
    const text = io.stdin.subarray(offset).toString("utf8");
    if (text.length === 0) return 1;
    const nl = text.indexOf("\n");
    const line = nl >= 0 ? text.slice(0, nl) : text;
    this.#readOffsets.set(io.stdin, offset + Buffer.byteLength(nl >= 0 ? text.slice(0, nl + 1) : text));
    const parts = line.trim().split(/[ \t]+/);
    const vars = names.length ? names : ["REPLY"];
    vars.forEach((n, i) => this.vars.set(n, i === vars.length - 1 ? parts.slice(i).join(" ") : (parts[i] ?? "")));
    return 0;
  }

  /** `sh -c 'script' [arg0 [args…]]`, `sh file`, or `sh` reading its script from stdin. */
  async #sh(args: string[], io: Io, env: Record<string, string>): Promise<number> {
    const sub = new Shell(this.host, this.commands);
    sub.cwd = this.cwd;
    sub.signal = this.signal;
    for (const [k, v] of Object.entries({ ...this.environment(), ...env })) {
      sub.vars.set(k, v);
      sub.exported.add(k);
    }
    let script: string;
    const c = args.indexOf("-c");
    if (c >= 0) {
      script = args[c + 1] ?? "";
      const rest = args.slice(c + 2);
      if (rest.length) sub.arg0 = rest[0]!;
      sub.positional = rest.slice(1);
    } else if (args[0] && !args[0].startsWith("-")) {
      try {
        script = this.host.fs.readFile(this.host.fs.normalize(args[0], this.cwd)).toString("utf8");
      } catch (e) {
        io.err(Buffer.from(`/system/bin/sh: ${args[0]}: ${(e as FsError).reason ?? String(e)}\n`));
        return 127;
      }
      sub.arg0 = args[0];
      sub.positional = args.slice(1);
    } else {
      script = io.stdin.toString("utf8");
    }
    return sub.run(script, io, c >= 0 ? io.stdin : EMPTY);
  }

  async #external(argv: string[], io: Io, env: Record<string, string>): Promise<number> {
    const name = argv[0]!;
    const base = name.includes("/") ? name.slice(name.lastIndexOf("/") + 1) : name;
    const impl = this.commands.get(base);
    if (!impl || (name.includes("/") && !/^\/(system|vendor|product|system_ext)\/(x?bin)\//.test(name))) {
      io.err(Buffer.from(`/system/bin/sh: ${name}: inaccessible or not found\n`));
      return 127;
    }
    const ctx: CommandContext = {
      argv,
      args: argv.slice(1),
      stdin: io.stdin,
      out: (d) => io.out(toBuf(d)),
      err: (d) => io.err(toBuf(d)),
      host: this.host,
      shell: this,
      env: { ...this.environment(), ...env },
      signal: this.signal,
    };
    // Running from before its delay to its end, whether or not the client is still there: `ps` lists it meanwhile.
    const ended = startCommand(this.host.phone, argv);
    try {
      await this.host.beforeCommand?.(argv);
      return await impl(ctx);
    } catch (e) {
      if (e instanceof ExitSignal || e instanceof LoopSignal || e instanceof ReturnSignal) throw e;
      if (e instanceof FsError) {
        io.err(Buffer.from(`${base}: ${e.message}\n`));
        return 1;
      }
      if ((e as { code?: string }).code === "INJECTED_FAULT") {
        io.err(Buffer.from(`${(e as Error).message}\n`));
        return 1;
      }
      if ((e as { code?: string }).code === "STREAM_CLOSED") throw new ExitSignal(130);
      io.err(Buffer.from(`${base}: ${(e as Error).message}\n`));
      return 255;
    } finally {
      ended();
    }
  }

  /** Command substitution: runs in a subshell, returns its output without trailing newlines. */
  async #capture(stmts: Node[], io: Io): Promise<{ text: string; status: number }> {
    const out: Buffer[] = [];
    const sub = this.child();
    const status = await sub.#subshell(stmts, { out: (d) => void out.push(d), err: io.err, stdin: EMPTY });
    return { text: Buffer.concat(out).toString("utf8").replace(/\n+$/, ""), status };
  }

  /** Applies a statement's redirects; returns the new io and a flush that writes redirected files, or an exit status. */
  async #redirect(redirs: Node[], io: Io): Promise<{ io: Io; flush(): void } | number> {
    if (redirs.length === 0) return { io, flush: () => {} };
    const fs = this.host.fs;
    const fds: Record<number, (d: Buffer) => void> = { 1: io.out, 2: io.err };
    let stdin = io.stdin;
    const files: { path: string; data: Buffer[] }[] = [];
    for (const r of redirs) {
      const op = r.Op as number;
      const fd = r.N ? Number(r.N.Value) : op === REDIRECT["<"] || op === REDIRECT["<&"] || op === REDIRECT["<<"] || op === REDIRECT["<<-"] || op === REDIRECT["<<<"] || op === REDIRECT["<>"] ? 0 : 1;
      if (op === REDIRECT["<<"] || op === REDIRECT["<<-"]) {
        let text = r.Hdoc ? await this.#expander.string(r.Hdoc as Node, io, true) : "";
        if (op === REDIRECT["<<-"]) text = text.replace(/^\t+/gm, "");
        stdin = Buffer.from(text);
        continue;
      }
      const target = await this.#expander.string(r.Word as Node, io);
      if (op === REDIRECT["<<<"]) {
        stdin = Buffer.from(target + "\n");
        continue;
      }
      if (op === REDIRECT["<"] || op === REDIRECT["<>"]) {
        if (target === "/dev/null" || target === "/dev/zero") stdin = EMPTY;
        else
          try {
            stdin = fs.readFile(fs.normalize(target, this.cwd));
          } catch (e) {
            io.err(Buffer.from(`/system/bin/sh: can't open ${target}: ${(e as FsError).reason ?? String(e)}\n`));
            return 1;
          }
        continue;
      }
      if (op === REDIRECT[">&"] || op === REDIRECT["<&"]) {
        if (/^\d+$/.test(target)) {
          const to = fds[Number(target)];
          if (!to) {
            io.err(Buffer.from(`/system/bin/sh: ${target}: bad file descriptor\n`));
            return 1;
          }
          fds[fd] = to;
          continue;
        }
        if (target === "-") {
          fds[fd] = () => {};
          continue;
        }
      }
      // > >> >| &> &>> (and >&file)
      const both = op === REDIRECT["&>"] || op === REDIRECT["&>>"] || (op === REDIRECT[">&"] && !r.N);
      const append = op === REDIRECT[">>"] || op === REDIRECT["&>>"];
      let sink: (d: Buffer) => void;
      if (target === "/dev/null" || target === "/dev/zero") sink = () => {};
      else if (target === "/dev/stdout" || target === "/dev/tty" || target === "/proc/self/fd/1") sink = io.out;
      else if (target === "/dev/stderr" || target === "/proc/self/fd/2") sink = io.err;
      else {
        const path = fs.normalize(target, this.cwd);
        try {
          // sh creates (or truncates) the file before the command runs, so a command that cannot write never starts
          fs.writeFile(path, EMPTY, { append: true });
          if (!append) fs.writeFile(path, EMPTY);
        } catch (e) {
          io.err(Buffer.from(`/system/bin/sh: can't create ${target}: ${(e as FsError).reason ?? String(e)}\n`));
          return 1;
        }
        const file = { path, data: [] as Buffer[] };
        files.push(file);
        sink = (d) => void file.data.push(d);
      }
      if (both) fds[1] = fds[2] = sink;
      else fds[fd] = sink;
    }
    return {
      io: { out: fds[1] ?? (() => {}), err: fds[2] ?? (() => {}), stdin },
      flush: () => {
        for (const f of files) if (f.data.length) fs.writeFile(f.path, Buffer.concat(f.data), { append: true });
      },
    };
  }
}

export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
