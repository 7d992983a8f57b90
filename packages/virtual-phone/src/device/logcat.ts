// The phone's log buffers as logcat reads them: boot messages and app events as records, their text formats, and the
// binary form `logcat -B` writes (logger_entry v4 headers, as liblog defines them).
import type { LogEntry, ScenarioRuntime } from "../scenario/runtime.ts";

export type LogPriority = "V" | "D" | "I" | "W" | "E" | "F";
export type LogBuffer = "main" | "system" | "crash" | "events" | "radio";
export const PRIORITY_CODE: Record<LogPriority, number> = { V: 2, D: 3, I: 4, W: 5, E: 6, F: 7 };
export const BUFFER_ID: Record<LogBuffer, number> = { main: 0, radio: 1, events: 2, system: 3, crash: 4 };

export interface LogRecord {
  /** Wall-clock milliseconds. */
  time: number;
  pid: number;
  tid: number;
  uid: number;
  priority: LogPriority;
  tag: string;
  message: string;
  buffer: LogBuffer;
}

export const SYSTEM_SERVER_PID = 612;

export function pidOf(pkg: string): number {
  let h = 0;
  for (const c of pkg) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return 2000 + (h % 20000);
}
export function uidOf(pkg: string): number {
  let h = 0;
  for (const c of pkg) h = (h * 131 + c.charCodeAt(0)) >>> 0;
  return 10_100 + (h % 200);
}

/** What a phone logs while it boots, ending when adbd comes up (the boot time). */
export function bootRecords(bootedAt: number): LogRecord[] {
  const start = bootedAt - 2700;
  const r = (dt: number, pid: number, priority: LogPriority, tag: string, message: string, buffer: LogBuffer = "main", uid = 1000): LogRecord => ({ time: start + dt, pid, tid: pid, uid, priority, tag, message, buffer });
  return [
    r(0, 1, "I", "init", "init first stage started!", "main", 0),
    r(310, 1, "I", "init", "starting service 'adbd'...", "main", 0),
    r(420, 431, "I", "adbd", "adbd started", "main", 0),
    r(900, SYSTEM_SERVER_PID, "I", "SystemServer", "Entered the Android system server!", "system"),
    r(1400, SYSTEM_SERVER_PID, "I", "ActivityManager", "System now ready", "system"),
    r(1800, SYSTEM_SERVER_PID, "I", "ActivityTaskManager", "START u0 {act=android.intent.action.MAIN cat=[android.intent.category.HOME] flg=0x10000100 cmp=com.google.android.apps.nexuslauncher/.NexusLauncherActivity} from uid 0", "system"),
    r(2600, SYSTEM_SERVER_PID, "I", "ActivityManager", "Boot completed", "system"),
    r(2601, SYSTEM_SERVER_PID, "I", "boot_progress_enable_screen", "2601", "events"),
  ];
}

const short = (pkg: string, activity: string) => (activity.startsWith(pkg + ".") ? activity.slice(pkg.length) : activity);

/** One scenario log entry as the records a phone would write for it. */
export function recordsOf(rt: ScenarioRuntime, e: LogEntry): LogRecord[] {
  const app = e.app ? rt.apps.get(e.app) : undefined;
  if (!app) return [];
  const pid = pidOf(app.package);
  const uid = uidOf(app.package);
  const sys = (priority: LogPriority, tag: string, message: string): LogRecord => ({ time: e.t, pid: SYSTEM_SERVER_PID, tid: 1830, uid: 1000, priority, tag, message, buffer: "system" });
  if (e.event === "screen") {
    const screen = app.screens.find((s) => s.id === e.screen);
    const act = rt.activityOf(app, screen);
    return [sys("I", "ActivityTaskManager", `START u0 {cmp=${act.package}/${short(act.package, act.activity)}} from uid 2000`), { ...sys("I", "ActivityTaskManager", `Displayed ${act.package}/${short(act.package, act.activity)} for user 0: +312ms`), time: e.t + 1 }];
  }
  if (e.event === "open_app") {
    const act = rt.activityOf(app);
    return [sys("I", "ActivityManager", `Start proc ${pid}:${app.package}/u0a${uid - 10_000} for next-top-activity {${app.package}/${short(app.package, act.activity)}}`)];
  }
  const { t: _t, app: _a, event, ...rest } = e;
  const data = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
  return [{ time: e.t, pid, tid: pid, uid, priority: "I", tag: app.label, message: `${event}${data}`, buffer: "main" }];
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

function stamp(ms: number, year = false): string {
  const d = new Date(ms);
  return `${year ? `${d.getUTCFullYear()}-` : ""}${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

export type LogFormat = "threadtime" | "brief" | "time" | "tag" | "process" | "thread" | "raw" | "long";

/** One record in one of logcat's text formats (`-v`). */
export function formatRecord(r: LogRecord, format: LogFormat, year = false): string {
  const lines = r.message.split("\n");
  const one = (msg: string): string => {
    switch (format) {
      case "brief":
        return `${r.priority}/${r.tag}(${String(r.pid).padStart(5)}): ${msg}`;
      case "time":
        return `${stamp(r.time, year)} ${r.priority}/${r.tag}(${String(r.pid).padStart(5)}): ${msg}`;
      case "tag":
        return `${r.priority}/${r.tag}: ${msg}`;
      case "process":
        return `${r.priority}(${String(r.pid).padStart(5)}) ${msg}  (${r.tag})`;
      case "thread":
        return `${r.priority}(${String(r.pid).padStart(5)}:${String(r.tid).padStart(5)}) ${msg}`;
      case "raw":
        return msg;
      case "long":
        return `[ ${stamp(r.time, year)} ${String(r.pid).padStart(5)}:${String(r.tid).padStart(5)} ${r.priority}/${r.tag} ]\n${msg}\n`;
      default:
        return `${stamp(r.time, year)} ${String(r.pid).padStart(5)} ${String(r.tid).padStart(5)} ${r.priority} ${r.tag.padEnd(8)}: ${msg}`;
    }
  };
  return format === "long" ? one(r.message) + "\n" : lines.map((l) => one(l) + "\n").join("");
}

/** `logcat -B`: a logger_entry (v4, 28-byte header) followed by priority, tag and message, NUL-terminated. */
export function binaryRecord(r: LogRecord): Buffer {
  const tag = Buffer.from(r.tag + "\0", "utf8");
  const msg = Buffer.from(r.message + "\0", "utf8");
  const payloadLen = 1 + tag.length + msg.length;
  const b = Buffer.alloc(28 + payloadLen);
  b.writeUInt16LE(payloadLen, 0);
  b.writeUInt16LE(28, 2);
  b.writeInt32LE(r.pid, 4);
  b.writeUInt32LE(r.tid, 8);
  b.writeUInt32LE(Math.floor(r.time / 1000), 12);
  b.writeUInt32LE((r.time % 1000) * 1_000_000, 16);
  b.writeUInt32LE(BUFFER_ID[r.buffer], 20);
  b.writeUInt32LE(r.uid, 24);
  b.writeUInt8(PRIORITY_CODE[r.priority], 28);
  tag.copy(b, 29);
  msg.copy(b, 29 + tag.length);
  return b;
}

/** `TAG:P` filter specs (and ANDROID_LOG_TAGS): the lowest priority a tag is shown at. */
export function tagFilter(specs: string[]): (r: LogRecord) => boolean {
  const order: LogPriority[] = ["V", "D", "I", "W", "E", "F"];
  const levels = new Map<string, number>();
  let fallback = 0;
  for (const spec of specs) {
    const [tag = "", p = "V"] = spec.split(":");
    const letter = p.toUpperCase();
    const level = letter === "S" ? 99 : Math.max(0, order.indexOf(letter as LogPriority));
    if (tag === "*") fallback = level;
    else levels.set(tag, level);
  }
  return (r) => order.indexOf(r.priority) >= (levels.get(r.tag) ?? fallback);
}
