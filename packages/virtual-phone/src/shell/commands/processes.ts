// logcat, ps, pidof and `dumpsys activity processes`, derived from what the apps did.
import { binaryRecord, bootRecords, formatRecord, pidOf, recordsOf, SYSTEM_SERVER_PID, tagFilter, uidOf, type LogBuffer, type LogFormat, type LogRecord } from "../../device/logcat.ts";
import type { LogEntry } from "../../scenario/runtime.ts";
import type { CommandContext, CommandRegistry } from "../types.ts";
import { SHELL_PID } from "../interpreter.ts";
import { runningCommands } from "../running.ts";

function running(ctx: CommandContext): string[] {
  const rt = ctx.host.phone.runtime;
  return [...rt.apps.values()].filter((a) => (rt.state.apps[a.id]?.stack.length ?? 0) > 0).map((a) => a.package);
}

const SYSTEM = ["system_server", "com.android.systemui", "com.google.android.apps.nexuslauncher", "com.android.inputmethod.latin"];
const pidOfName = (name: string) => (name === "system_server" ? SYSTEM_SERVER_PID : pidOf(name));

/** A process as `ps` shows it. */
interface Proc {
  user: string;
  pid: number;
  ppid: number;
  name: string;
  args: string;
}

/** init, the system's processes, the running apps, then the shell commands still running (a tap a lagging phone is still carrying out). */
function processes(ctx: CommandContext): Proc[] {
  const apps = [...SYSTEM, ...running(ctx)].map((name) => ({ user: name === "system_server" ? "system" : `u0_a${uidOf(name) - 10_000}`, pid: pidOfName(name), ppid: 612, name, args: name }));
  const commands = runningCommands(ctx.host.phone).map((c) => ({ user: "shell", pid: c.pid, ppid: SHELL_PID, name: c.argv[0]!.slice(c.argv[0]!.lastIndexOf("/") + 1), args: c.argv.join(" ") }));
  return [{ user: "root", pid: 1, ppid: 0, name: "init", args: "/system/bin/init second_stage" }, ...apps, ...commands];
}

/** toybox ps's columns a client asks for with -o (ARGS and CMDLINE: the command line; CMD and NAME: the process name). */
const COLUMNS: Record<string, { width: number; right: boolean; of: (p: Proc) => string }> = {
  PID: { width: 5, right: true, of: (p) => String(p.pid) },
  PPID: { width: 5, right: true, of: (p) => String(p.ppid) },
  USER: { width: 8, right: false, of: (p) => p.user },
  S: { width: 1, right: false, of: () => "S" },
  NAME: { width: 27, right: false, of: (p) => p.name },
  CMD: { width: 27, right: false, of: (p) => p.name },
  ARGS: { width: 27, right: false, of: (p) => p.args },
  CMDLINE: { width: 27, right: false, of: (p) => p.args },
};

const ps = (ctx: CommandContext) => {
  const columns: string[] = [];
  for (let i = 0; i < ctx.args.length; i++) {
    const a = ctx.args[i]!;
    if (a === "-o" || a.startsWith("-o")) columns.push(...(a === "-o" ? (ctx.args[++i] ?? "") : a.slice(2)).split(",").map((c) => c.trim().toUpperCase()).filter(Boolean));
  }
  const unknown = columns.find((c) => !COLUMNS[c]);
  if (unknown) {
    ctx.err(`ps: bad -o ${unknown}\n`);
    return 1;
  }
  const procs = processes(ctx);
  if (columns.length) {
    const cell = (c: string, v: string, last: boolean) => (last ? v : COLUMNS[c]!.right ? v.padStart(COLUMNS[c]!.width) : v.padEnd(COLUMNS[c]!.width));
    const line = (values: string[]) => values.map((v, k) => cell(columns[k]!, v, k === columns.length - 1)).join(" ") + "\n";
    ctx.out(line(columns));
    for (const p of procs) ctx.out(line(columns.map((c) => COLUMNS[c]!.of(p))));
    return 0;
  }
  ctx.out("USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME                       \n");
  for (const p of procs) ctx.out(`${p.user.padEnd(14)}${String(p.pid).padStart(5)} ${String(p.ppid).padStart(5)} ${p.pid === 1 ? "10871872  5188" : "14820348 182452"} 0                   0 S ${p.name}\n`);
  return 0;
};

const pidof = (ctx: CommandContext) => {
  const procs = processes(ctx);
  const found = ctx.args.flatMap((a) => procs.filter((p) => p.name === a).map((p) => p.pid));
  if (found.length === 0) return 1;
  ctx.out(`${found.join(" ")}\n`);
  return 0;
};

/** `dumpsys activity processes`: one ProcessRecord per running app, the system's own processes, and the LRU list. */
export function dumpsysProcesses(ctx: CommandContext, args: string[]): number {
  const only = args.find((a) => !a.startsWith("-"));
  const rt = ctx.host.phone.runtime;
  const fg = rt.state.foreground ? rt.appById(rt.state.foreground).package : "com.google.android.apps.nexuslauncher";
  const names = [...SYSTEM.slice(1), ...running(ctx)].filter((n) => !only || n === only);
  const record = (n: string) => `ProcessRecord{${pidOf("pr" + n).toString(16)} ${pidOfName(n)}:${n}/u0a${uidOf(n) - 10_000}}`;
  const out: string[] = ["ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)", "  All known processes:"];
  for (const n of names) {
    out.push(
      `  *APP* UID ${uidOf(n)} ${record(n)}`,
      `    user #0 uid=${uidOf(n)} gids={${uidOf(n) + 40_000}, ${uidOf(n) + 10_000}, 9997, 3003}`,
      `    mRequiredAbi=arm64-v8a instructionSet=null`,
      `    dir=/data/app/${n}-1/base.apk publicDir=/data/app/${n}-1/base.apk data=/data/user/0/${n}`,
      `    packageList={${n}}`,
      `    compat={420dpi}`,
      `    thread=android.app.IApplicationThread$Stub$Proxy@${pidOf("t" + n).toString(16)}`,
      `    pid=${pidOfName(n)} processGroup=${n === fg ? "top-app" : "default"}`,
      `    lastActivityTime=-${n === fg ? "0" : "1m2s"}`,
      `    oom: max=1001 curRaw=${n === fg ? 0 : 200} setRaw=${n === fg ? 0 : 200} cur=${n === fg ? 0 : 200} set=${n === fg ? 0 : 200}`,
      `    mCurSchedGroup=${n === fg ? 3 : 2} setSchedGroup=${n === fg ? 3 : 2} systemNoUi=false`,
      `    curProcState=${n === fg ? 2 : 4} mRepProcState=${n === fg ? 2 : 4} setProcState=${n === fg ? 2 : 4}`,
      `    hasShownUi=true pendingUiClean=false`,
    );
  }
  out.push("", "  PID mappings:");
  for (const n of [...names].sort((a, b) => pidOfName(a) - pidOfName(b))) out.push(`    PID #${pidOfName(n)}: ${record(n)}`);
  out.push("", `  Process LRU list (sorted by oom_adj, ${names.length} total, non-act at 0, non-svc at 0):`);
  names
    .slice()
    .sort((a, b) => Number(b === fg) - Number(a === fg))
    .forEach((n, i) => out.push(`    Proc # ${i}: ${n === fg ? "fg     T/A/TOP  LCMN" : "vis    F/ /BFGS ----"}  t: 0 ${pidOfName(n)}:${n}/u0a${uidOf(n) - 10_000} (${n === fg ? "top-activity" : "service"})`));
  out.push("", `  mHomeProcess: ${record("com.google.android.apps.nexuslauncher")}`, `  mPreviousProcess: null`, "");
  ctx.out(out.join("\n") + "\n");
  return 0;
}

/** Logs cleared with `logcat -c`, per phone: records at or before this time are gone. */
const clearedAt = new WeakMap<object, number>();

function allRecords(ctx: CommandContext, entries: LogEntry[]): LogRecord[] {
  const rt = ctx.host.phone.runtime;
  const cleared = clearedAt.get(ctx.host.phone) ?? -Infinity;
  return [...bootRecords(ctx.host.fs.bootedAt), ...entries.flatMap((e) => recordsOf(rt, e))].filter((r) => r.time > cleared).sort((a, b) => a.time - b.time);
}

const USAGE = "Usage: logcat [options] [filterspecs]\n\nGeneral options:\n  -b, --buffer=<buffer>       Request alternate ring buffer(s): main system radio events crash default all\n  -c, --clear                 Clear (flush) the entire log and exit\n  -d                          Dump the log and then exit (don't block)\n  -t <count>                  Print only the most recent <count> lines (implies -d)\n  -T <count>                  Print only the most recent <count> lines (does not imply -d)\n  -g, --buffer-size           Get the size of the ring buffers within logd\n  -B, --binary                Output the log in binary\n  -v, --format=<format>       brief process tag thread raw time threadtime long\n  -e, --regex=<expr>          Only print lines where the log message matches <expr>\n  -m, --max-count=<count>     Quit after printing <count> lines\n  -s                          Set default filter to silent\n";

/** logcat: dumps (-d, -t) or streams until the client closes the stream; text formats or -B binary. */
const logcat = async (ctx: CommandContext) => {
  const rt = ctx.host.phone.runtime;
  let dump = false;
  let binary = false;
  let format: LogFormat = "threadtime";
  let year = false;
  let tail: number | undefined;
  let regex: RegExp | undefined;
  let maxCount = Infinity;
  let pid: number | undefined;
  let silent = false;
  let file: string | undefined;
  const buffers = new Set<LogBuffer>();
  const specs: string[] = [];
  const a = ctx.args;
  for (let i = 0; i < a.length; i++) {
    const arg = a[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => inline ?? (/^-[a-zA-Z]./.test(arg) && !arg.startsWith("--") ? arg.slice(2) : a[++i] ?? "");
    switch (flag[0] === "-" && !flag.startsWith("--") && flag.length > 2 ? flag.slice(0, 2) : flag) {
      case "-d":
        dump = true;
        break;
      case "-c":
      case "--clear":
        rt.state.log.length = 0;
        clearedAt.set(ctx.host.phone, Math.max(Date.now(), ctx.host.phone.clock.now()));
        return 0;
      case "-B":
      case "--binary":
        binary = true;
        break;
      case "-v":
      case "--format": {
        const v = value();
        if (["brief", "process", "tag", "thread", "raw", "time", "threadtime", "long"].includes(v)) format = v as LogFormat;
        else if (v === "year") year = true;
        else if (!["color", "descriptive", "epoch", "monotonic", "printable", "uid", "usec", "UTC", "zone", "nsec"].includes(v)) {
          ctx.err(`logcat: Invalid parameter "${v}" to -v.\n`);
          return 1;
        }
        break;
      }
      case "-t":
        tail = Number(value());
        dump = true;
        break;
      case "-T":
        tail = Number(value());
        break;
      case "-e":
      case "--regex":
        regex = new RegExp(value());
        break;
      case "-m":
      case "--max-count":
        maxCount = Number(value());
        break;
      case "-b":
      case "--buffer":
        for (const b of value().split(",")) {
          if (b === "all") ["main", "system", "crash", "events", "radio"].forEach((x) => buffers.add(x as LogBuffer));
          else if (b === "default") ["main", "system", "crash"].forEach((x) => buffers.add(x as LogBuffer));
          else if (["main", "system", "crash", "events", "radio"].includes(b)) buffers.add(b as LogBuffer);
          else {
            ctx.err(`logcat: Unknown buffer '${b}'.\n`);
            return 1;
          }
        }
        break;
      case "-s":
        silent = true;
        break;
      case "-f":
      case "--file":
        file = value();
        break;
      case "--pid":
        pid = Number(value());
        break;
      case "-g":
      case "--buffer-size":
        ctx.out("main: ring buffer is 256 KiB (41 KiB consumed), max entry is 5120 B, max payload is 4068 B\nsystem: ring buffer is 256 KiB (12 KiB consumed), max entry is 5120 B, max payload is 4068 B\ncrash: ring buffer is 256 KiB (0 B consumed), max entry is 5120 B, max payload is 4068 B\n");
        return 0;
      case "-h":
      case "--help":
        ctx.err(USAGE);
        return 0;
      default:
        if (arg.startsWith("-")) {
          ctx.err(`logcat: invalid option -- '${arg.replace(/^-+/, "")}'\n${USAGE}`);
          return 1;
        }
        specs.push(arg);
    }
  }
  if (buffers.size === 0) ["main", "system", "crash"].forEach((b) => buffers.add(b as LogBuffer));
  const envTags = (ctx.env.ANDROID_LOG_TAGS ?? "").split(/\s+/).filter(Boolean);
  const show = tagFilter([...(silent ? ["*:S"] : envTags), ...specs]);
  const keep = (r: LogRecord) => buffers.has(r.buffer) && show(r) && (pid === undefined || r.pid === pid) && (!regex || regex.test(r.message));
  let printed = 0;
  const begun = new Set<LogBuffer>();
  const write = (d: string | Buffer) => (file ? ctx.host.fs.writeFile(ctx.host.fs.normalize(file, ctx.shell.cwd), Buffer.from(d), { append: true }) : ctx.out(d));
  const emit = (records: LogRecord[]) => {
    for (const r of records) {
      if (printed >= maxCount) return;
      if (binary) write(binaryRecord(r));
      else {
        if (!begun.has(r.buffer)) write(`--------- beginning of ${r.buffer}\n`);
        write(formatRecord(r, format, year));
      }
      begun.add(r.buffer);
      printed++;
    }
  };
  const existing = allRecords(ctx, rt.state.log).filter(keep);
  emit(tail !== undefined && Number.isFinite(tail) ? existing.slice(-tail) : existing);
  if (dump || printed >= maxCount || ctx.signal.aborted) return 0;
  // stream: new entries as the scenario writes them, until the client closes the stream
  await new Promise<void>((resolve) => {
    const onLog = (e: LogEntry) => {
      emit(recordsOf(ctx.host.phone.runtime, e).filter(keep));
      if (printed >= maxCount) done();
    };
    const done = () => {
      ctx.host.phone.off("log", onLog);
      resolve();
    };
    ctx.host.phone.on("log", onLog);
    ctx.signal.addEventListener("abort", done, { once: true });
  });
  return 0;
};

export function registerProcesses(r: CommandRegistry): void {
  r.set("ps", ps);
  r.set("pidof", pidof);
  r.set("logcat", logcat);
  r.set("reboot", async (ctx) => {
    const reason = ctx.args.includes("-p") ? "shutdown" : (ctx.args.find((a) => !a.startsWith("-")) ?? "");
    if (!ctx.host.reboot) {
      ctx.err("reboot: Operation not permitted\n");
      return 1;
    }
    await ctx.host.reboot(reason);
    // like the applet, it does not return: the phone goes down under it
    if (!ctx.signal.aborted) await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    return 0;
  });
}
