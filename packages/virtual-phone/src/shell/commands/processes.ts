// logcat, ps and pidof, derived from what the apps did.
import type { CommandContext, CommandRegistry } from "../types.ts";

const pidOf = (pkg: string) => {
  let h = 0;
  for (const c of pkg) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return 2000 + (h % 20000);
};

function running(ctx: CommandContext): string[] {
  const rt = ctx.host.phone.runtime;
  return [...rt.apps.values()].filter((a) => (rt.state.apps[a.id]?.stack.length ?? 0) > 0).map((a) => a.package);
}

const SYSTEM = ["system_server", "com.android.systemui", "com.google.android.apps.nexuslauncher", "com.android.inputmethod.latin"];

const ps = (ctx: CommandContext) => {
  ctx.out("USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME                       \n");
  ctx.out("root             1     0 10871872  5188 0                   0 S init\n");
  for (const name of [...SYSTEM, ...running(ctx)]) {
    const user = name === "system_server" ? "system" : `u0_a${pidOf(name) % 300}`;
    ctx.out(`${user.padEnd(14)}${String(pidOf(name)).padStart(5)}   612 14820348 182452 0                   0 S ${name}\n`);
  }
  return 0;
};

const pidof = (ctx: CommandContext) => {
  const all = [...SYSTEM, ...running(ctx)];
  const found = ctx.args.filter((a) => all.includes(a)).map(pidOf);
  if (found.length === 0) return 1;
  ctx.out(`${found.join(" ")}\n`);
  return 0;
};

/** `logcat -d` (and plain `logcat`, which here prints the buffer and returns): activity starts and app events. */
const logcat = (ctx: CommandContext) => {
  const rt = ctx.host.phone.runtime;
  if (ctx.args.includes("-c")) {
    rt.state.log.length = 0;
    return 0;
  }
  const lines: string[] = [];
  for (const e of rt.state.log) {
    const d = new Date(e.t);
    const ts = `${String(d.getUTCMonth() + 1).padStart(2, "0")}-${String(d.getUTCDate()).padStart(2, "0")} ${d.toISOString().slice(11, 23)}`;
    const app = e.app ? rt.apps.get(e.app) : undefined;
    if (e.event === "screen" && app) {
      const act = rt.activityOf(app, app.screens.find((s) => s.id === e.screen));
      lines.push(`${ts}   612  1830 I ActivityTaskManager: START u0 {cmp=${act.package}/${act.activity.replace(act.package, "")}} from uid 2000`);
    } else if (app) {
      const { t: _t, app: _a, event, ...rest } = e;
      lines.push(`${ts} ${String(pidOf(app.package)).padStart(5)} ${String(pidOf(app.package)).padStart(5)} I ${app.label}: ${event} ${JSON.stringify(rest)}`);
    }
  }
  const grepArg = ctx.args.indexOf("-e");
  const filtered = grepArg >= 0 ? lines.filter((l) => new RegExp(ctx.args[grepArg + 1] ?? "").test(l)) : lines;
  const tArg = ctx.args.indexOf("-t");
  const tail = tArg >= 0 ? filtered.slice(-Number(ctx.args[tArg + 1] ?? filtered.length)) : filtered;
  ctx.out(`--------- beginning of main\n${tail.map((l) => l + "\n").join("")}`);
  return 0;
};

export function registerProcesses(r: CommandRegistry): void {
  r.set("ps", ps);
  r.set("pidof", pidof);
  r.set("logcat", logcat);
}
