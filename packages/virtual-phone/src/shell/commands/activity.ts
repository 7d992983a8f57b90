// am, monkey, pm, cmd, ime, settings, wm, dumpsys: the system services agents talk to.
import { createHash } from "node:crypto";
import type { CommandContext, CommandRegistry } from "../types.ts";
import { ADB_KEYBOARD_IME, DEFAULT_IME } from "../../scenario/runtime.ts";
import { parseKeycode } from "./keycodes.ts";
import { dumpsysDisplay, dumpsysInput, dumpsysSurfaceFlinger, dumpsysWindowDisplays, globalConfiguration } from "./display.ts";
import { dumpsysPackage, packageManager, SYSTEM_PACKAGES } from "./packages.ts";
import { dumpsysProcesses } from "./processes.ts";

export { SYSTEM_PACKAGES };

const hex = (s: string, n = 7) => createHash("md5").update(s).digest("hex").slice(0, n);
const short = (pkg: string, activity: string) => (activity.startsWith(pkg + ".") ? activity.slice(pkg.length) : activity);
const taskId = (pkg: string) => 10 + (Number.parseInt(hex(pkg, 4), 16) % 90);

interface Intent {
  action?: string;
  data?: string;
  component?: string;
  categories: string[];
  extras: Record<string, string>;
  flags: string[];
  pkg?: string;
}

function parseIntent(args: string[]): Intent {
  const it: Intent = { categories: [], extras: {}, flags: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = () => args[++i] ?? "";
    switch (a) {
      case "-a":
        it.action = next();
        break;
      case "-d":
        it.data = next();
        break;
      case "-n":
        it.component = next();
        break;
      case "-c":
        it.categories.push(next());
        break;
      case "-p":
        it.pkg = next();
        break;
      case "-t":
      case "--user":
      case "-f":
        next();
        break;
      case "--es":
      case "--ei":
      case "--ez":
      case "--el":
      case "--ef":
      case "--eu":
      case "--esa":
      case "--eia": {
        const k = next();
        it.extras[k] = next();
        break;
      }
      default:
        if (a.startsWith("-")) it.flags.push(a);
        else if (!it.component && a.includes("/")) it.component = a;
        else if (!it.data && a.includes(":")) it.data = a;
    }
  }
  return it;
}

function describe(it: Intent, extra = ""): string {
  const parts: string[] = [];
  if (it.action) parts.push(`act=${it.action}`);
  if (it.categories.length) parts.push(`cat=[${it.categories.join(",")}]`);
  if (it.data) parts.push(`dat=${it.data}`);
  if (it.component) parts.push(`cmp=${it.component}`);
  if (extra) parts.push(extra);
  if (Object.keys(it.extras).length) parts.push("(has extras)");
  return `Intent { ${parts.join(" ")} }`;
}

function amStart(ctx: CommandContext, args: string[]): number {
  const it = parseIntent(args);
  const rt = ctx.host.phone.runtime;
  const t0 = Date.now();
  if (it.flags.includes("-S") && it.component) {
    const app = rt.appByPackage(it.component.split("/")[0]!);
    if (app) rt.forceStop(app.id);
  }
  ctx.out(`Starting: ${describe(it)}\n`);
  if (it.component) {
    const [pkg, actRaw = ""] = it.component.split("/") as [string, string?];
    const app = rt.appByPackage(pkg);
    const activity = actRaw.startsWith(".") ? pkg + actRaw : actRaw;
    if (!app) {
      ctx.err(`Error: Activity class {${pkg}/${activity}} does not exist.\n`);
      return 1;
    }
    const screen = app.screens.find((s) => rt.activityOf(app, s).activity === activity);
    if (activity !== rt.activityOf(app).activity && !screen) {
      ctx.err(`Error: Activity class {${pkg}/${activity}} does not exist.\n`);
      return 1;
    }
    const wasTop = rt.state.foreground === app.id;
    rt.launch(app.id, screen && screen.id !== app.start ? screen.id : undefined);
    if (wasTop && !screen) ctx.out("Warning: Activity not started, intent has been delivered to currently running top-most instance.\n");
  } else if (it.data) {
    if (!rt.openUrl(it.data)) {
      ctx.err(`Error: Activity not started, unable to resolve ${describe(it, "flg=0x10000000")}\n`);
      return 1;
    }
  } else if (it.pkg || it.categories.includes("android.intent.category.HOME")) {
    if (it.categories.includes("android.intent.category.HOME")) rt.home();
    else {
      const app = rt.appByPackage(it.pkg!);
      if (!app) {
        ctx.err(`Error: Activity not started, unable to resolve ${describe(it, "flg=0x10000000")}\n`);
        return 1;
      }
      rt.launch(app.id);
    }
  } else {
    ctx.err(`Error: Activity not started, unable to resolve ${describe(it, "flg=0x10000000")}\n`);
    return 1;
  }
  if (it.flags.includes("-W")) {
    const f = rt.resumedActivity();
    const ms = Math.max(1, Date.now() - t0);
    ctx.out(`Status: ok\nLaunchState: COLD\nActivity: ${f.package}/${short(f.package, f.activity)}\nTotalTime: ${ms}\nWaitTime: ${ms + 2}\nComplete\n`);
  }
  return 0;
}

function amBroadcast(ctx: CommandContext, args: string[]): number {
  const it = parseIntent(args);
  const rt = ctx.host.phone.runtime;
  ctx.out(`Broadcasting: ${describe(it, "flg=0x400000")}\n`);
  // ADBKeyboard only acts while it is the active input method, as on a phone.
  const adbIme = rt.state.settings.secure.default_input_method === ADB_KEYBOARD_IME;
  if (adbIme) {
    switch (it.action) {
      case "ADB_INPUT_TEXT":
        if (it.extras.msg !== undefined) rt.typeText(it.extras.msg);
        break;
      case "ADB_INPUT_B64":
        if (it.extras.msg !== undefined) rt.typeText(Buffer.from(it.extras.msg, "base64").toString("utf8"));
        break;
      case "ADB_CLEAR_TEXT":
        rt.clearText();
        break;
      case "ADB_INPUT_CODE": {
        const code = parseKeycode(it.extras.code ?? "");
        if (code !== null) rt.key(code);
        break;
      }
      case "ADB_EDITOR_CODE":
        rt.enter();
        break;
      case "ADB_INPUT_CHARS":
        rt.typeText(String.fromCodePoint(...(it.extras.chars ?? "").split(",").filter(Boolean).map(Number)));
        break;
    }
  }
  ctx.out("Broadcast completed: result=0\n");
  return 0;
}

const am = (ctx: CommandContext) => {
  const [sub, ...rest] = ctx.args;
  const rt = ctx.host.phone.runtime;
  switch (sub) {
    case "start":
    case "start-activity":
      return amStart(ctx, rest);
    case "broadcast":
      return amBroadcast(ctx, rest);
    case "force-stop":
    case "kill": {
      const app = rt.appByPackage(rest.filter((a) => !a.startsWith("-")).at(-1) ?? "");
      if (app) rt.forceStop(app.id);
      return 0;
    }
    case "stack":
    case "task":
      ctx.out("");
      return 0;
    default:
      ctx.err(`Activity manager (activity) commands:\n  help\n      Print this help text.\n  start [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>] <INTENT>\n      Start an Activity.\n  broadcast [--user <USER_ID> | all | current] <INTENT>\n      Send a broadcast Intent.\n  force-stop [--user <USER_ID> | all | current] <PACKAGE>\n      Completely stop the given application package.\n`);
      return sub ? 1 : 0;
  }
};

const monkey = (ctx: CommandContext) => {
  const args = ctx.args;
  const pi = args.indexOf("-p");
  const pkg = pi >= 0 ? args[pi + 1] : undefined;
  const rt = ctx.host.phone.runtime;
  for (const a of args) ctx.out(`  bash arg: ${a}\n`);
  ctx.out(`args: [${args.join(", ")}]\n`);
  for (const a of args) ctx.out(` arg: "${a}"\n`);
  const app = pkg ? rt.appByPackage(pkg) : undefined;
  if (!app) {
    ctx.out(pkg ? `data="${pkg}"\n` : "");
    ctx.err("** No activities found to run, monkey aborted.\n");
    return 252;
  }
  ctx.out(`data="${pkg}"\n`);
  if (args.includes("-c")) ctx.out(`data="${args[args.indexOf("-c") + 1]}"\n`);
  rt.launch(app.id);
  ctx.out("Events injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n");
  return 0;
};

const pm = packageManager;

const IMES = [DEFAULT_IME, ADB_KEYBOARD_IME];

const ime = (ctx: CommandContext) => {
  const [sub, ...rest] = ctx.args;
  const rt = ctx.host.phone.runtime;
  const sec = rt.state.settings.secure;
  switch (sub) {
    case "list":
      if (rest.includes("-s")) for (const i of IMES) ctx.out(`${i}\n`);
      else
        for (const i of IMES) {
          const [pkg, cls] = i.split("/") as [string, string];
          ctx.out(`${i}:\n  mId=${i} mSettingsActivityName=null\n  mIsVrOnly=false mSupportsSwitchingToNextInputMethod=false\n  mIsDefaultResId=0x0\n  Service:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ServiceInfo:\n      name=${pkg}${cls}\n      packageName=${pkg}\n`);
        }
      return 0;
    case "set": {
      const id = rest[0] ?? "";
      if (!IMES.includes(id)) {
        ctx.err(`Unknown input method ${id} cannot be selected for user #0\n`);
        return 255;
      }
      sec.default_input_method = id;
      rt.touch();
      ctx.out(`Input method ${id} selected for user #0\n`);
      return 0;
    }
    case "enable":
    case "disable": {
      const id = rest[0] ?? "";
      if (!IMES.includes(id)) {
        ctx.err(`Unknown input method ${id} cannot be ${sub}d for user #0\n`);
        return 255;
      }
      ctx.out(`Input method ${id}: already ${sub}d for user #0\n`);
      return 0;
    }
    case "reset":
      sec.default_input_method = DEFAULT_IME;
      rt.touch();
      ctx.out(`Reset current and enabled IMEs for user #0\n  Selected: ${DEFAULT_IME}\n`);
      return 0;
    default:
      ctx.err("ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n  reset [--user <USER_ID>]\n");
      return sub ? 1 : 0;
  }
};

const settings = (ctx: CommandContext) => {
  const args = ctx.args.filter((a, i, all) => a !== "--user" && all[i - 1] !== "--user");
  const [sub, ns, key, ...value] = args;
  const rt = ctx.host.phone.runtime;
  const table = rt.state.settings[ns as "system" | "secure" | "global"];
  if (!sub || !["get", "put", "delete", "list", "reset"].includes(sub)) {
    ctx.err("Settings provider (settings) commands:\n  get [--user <USER_ID> | current] NAMESPACE KEY\n  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]\n  delete [--user <USER_ID> | current] NAMESPACE KEY\n  list [--user <USER_ID> | current] NAMESPACE\n");
    return sub ? 1 : 0;
  }
  if (!table) {
    ctx.err(`Invalid namespace '${ns ?? ""}'\n`);
    return 255;
  }
  switch (sub) {
    case "get":
      ctx.out(`${table[key ?? ""] === undefined ? "null" : String(table[key ?? ""])}\n`);
      return 0;
    case "put":
      if (!key || value.length === 0) {
        ctx.err("Invalid arguments: settings put NAMESPACE KEY VALUE\n");
        return 255;
      }
      table[key] = value[0]!;
      rt.touch();
      return 0;
    case "delete":
      ctx.out(`Deleted ${key && key in table ? 1 : 0} rows\n`);
      if (key) delete table[key];
      rt.touch();
      return 0;
    case "list":
      for (const k of Object.keys(table).sort()) ctx.out(`${k}=${String(table[k])}\n`);
      return 0;
    default:
      return 0;
  }
};

const wm = (ctx: CommandContext) => {
  const [sub, arg] = ctx.args;
  const dev = ctx.host.phone.device;
  if (sub === "size") {
    if (!arg) ctx.out(`Physical size: ${dev.width}x${dev.height}\n`);
    else if (arg !== "reset") {
      ctx.err("Error: this virtual phone renders at its physical size; load a scenario with another `device` size instead\n");
      return 1;
    }
    return 0;
  }
  if (sub === "density") {
    if (!arg) ctx.out(`Physical density: ${dev.density}\n`);
    else if (arg !== "reset") {
      ctx.err("Error: this virtual phone renders at its physical density; load a scenario with another `device` density instead\n");
      return 1;
    }
    return 0;
  }
  ctx.err("Window manager (window) commands:\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n  density [reset|DENSITY] [-d DISPLAY_ID]\n");
  return sub ? 1 : 0;
};

function windowLine(pkg: string, activity: string): string {
  // system windows (NotificationShade, StatusBar) are named without a component
  return activity.includes(".") ? `Window{${hex(pkg + activity)} u0 ${pkg}/${activity}}` : `Window{${hex(pkg + activity)} u0 ${activity}}`;
}
function activityRecord(pkg: string, activity: string): string {
  return `ActivityRecord{${hex("ar" + pkg + activity)} u0 ${pkg}/${short(pkg, activity)} t${taskId(pkg)}}`;
}

function dumpsysWindow(ctx: CommandContext): void {
  const phone = ctx.host.phone;
  const rt = phone.runtime;
  const fw = rt.focusedWindow();
  const ra = rt.resumedActivity();
  const keyboard = rt.state.focus !== null;
  const imePkg = String(rt.state.settings.secure.default_input_method).split("/")[0];
  const out: string[] = [];
  out.push("WINDOW MANAGER LAST ANR (dumpsys window lastanr)", "  <no ANR has occurred since boot>", "");
  out.push("WINDOW MANAGER POLICY STATE (dumpsys window policy)", "    mSafeMode=false mSystemReady=true mSystemBooted=true", `    mLidState=LID_ABSENT mLidOpenRotation=-1 mCameraLensCoverState=LENS_COVER_ABSENT`, `    mScreenOnEarly=${rt.state.screenOn} mScreenOnFully=${rt.state.screenOn}`, "    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true", "");
  out.push("WINDOW MANAGER WINDOWS (dumpsys window windows)");
  const windows: [string, string, string][] = [
    ["com.android.systemui", "StatusBar", "TYPE_STATUS_BAR"],
    ["com.android.systemui", "NavigationBar0", "TYPE_NAVIGATION_BAR"],
  ];
  if (keyboard) windows.push([imePkg!, "InputMethod", "TYPE_INPUT_METHOD"]);
  if (fw.package !== ra.package || fw.activity !== ra.activity) windows.push([fw.package, fw.activity, "TYPE_BASE_APPLICATION"]);
  windows.push([ra.package, ra.activity, "TYPE_BASE_APPLICATION"]);
  // A secure window (the control API's secure fault) lists SECURE among its flags, as Android's LayoutParams print.
  const secure = phone.faults.secure;
  windows.forEach(([pkg, name, type], i) => {
    const w = name.includes(".") ? windowLine(pkg, name) : `Window{${hex(pkg + name)} u0 ${name}}`;
    const flags = secure && type === "TYPE_BASE_APPLICATION" && pkg === fw.package ? "\n      fl=LAYOUT_IN_SCREEN SECURE HARDWARE_ACCELERATED" : "";
    out.push(`  Window #${i} ${w}:`, `    mDisplayId=0 rootTaskId=${taskId(pkg)} mSession=Session{${hex("s" + pkg)} 1234:u0a10${taskId(pkg)}} mClient=android.os.BinderProxy@${hex("c" + pkg)}`, `    mOwnerUid=10${taskId(pkg)} showForAllUsers=false package=${pkg} appop=NONE`, `    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=${type.replace("TYPE_", "").toLowerCase()} fmt=TRANSLUCENT${flags}}`, `    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false`);
  });
  out.push("");
  out.push(globalConfiguration(phone));
  out.push("  mHasPermanentDpad=false", "  mTopFocusedDisplayId=0");
  if (keyboard) {
    out.push(`  mInputMethodTarget in display# 0 ${windowLine(ra.package, ra.activity)}`, `  mInputMethodInputTarget in display# 0 ${windowLine(ra.package, ra.activity)}`);
    out.push(`  mInputMethodWindow=Window{${hex(imePkg + "InputMethod")} u0 InputMethod}`);
  }
  out.push(`  mCurrentFocus=${windowLine(fw.package, fw.activity)}`);
  const app = fw.activity.includes(".") ? fw : ra;
  out.push(`  mFocusedApp=${activityRecord(app.package, app.activity)}`);
  out.push(`  mInTouchMode=true`, `  mDisplayFrozen=false windowsAreFocusable=true`, "");
  ctx.out(out.join("\n") + "\n");
}

function dumpsysActivities(ctx: CommandContext): void {
  const rt = ctx.host.phone.runtime;
  const ra = rt.resumedActivity();
  const rec = activityRecord(ra.package, ra.activity);
  const out: string[] = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)", "Display #0 (activities from top to bottom):"];
  const tasks = [...rt.state.recents.filter((id) => (rt.state.apps[id]?.stack.length ?? 0) > 0)];
  const fg = rt.state.foreground;
  const order = fg ? [fg, ...tasks.filter((t) => t !== fg)] : tasks;
  if (!fg) order.unshift("__launcher");
  for (const id of order) {
    if (id === "__launcher") {
      const l = rt.resumedActivity();
      out.push(`  * Task{${hex("task" + l.package)} #1 type=home A=10001:${l.package} U=0 visible=true mode=fullscreen translucent=false sz=1}`, `    * Hist  #0: ${activityRecord(l.package, l.activity)}`);
      continue;
    }
    const app = rt.appById(id);
    const frames = rt.state.apps[id]!.stack;
    out.push(`  * Task{${hex("task" + app.package)} #${taskId(app.package)} type=standard A=10${taskId(app.package)}:${app.package} U=0 visible=${id === fg} mode=fullscreen translucent=false sz=${frames.length}}`);
    frames
      .slice()
      .reverse()
      .forEach((f, i) => {
        const act = rt.activityOf(app, app.screens.find((s) => s.id === f.screen));
        out.push(`    * Hist  #${frames.length - 1 - i}: ${activityRecord(act.package, act.activity)}`);
      });
  }
  out.push("", `  ResumedActivity: ${rec}`, `  mFocusedRootTask=Task{${hex("task" + ra.package)} #${taskId(ra.package)}}`, `  mResumedActivity: ${rec}`, `  mLastPausedActivity: ${rec}`, "");
  ctx.out(out.join("\n") + "\n");
}

function dumpsysBattery(ctx: CommandContext): void {
  const level = ctx.host.phone.runtime.battery;
  ctx.out(
    `Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n  Dock powered: false\n  Max charging current: 500000\n  Max charging voltage: 5000000\n  Charge counter: ${level * 40000}\n  status: 2\n  health: 2\n  present: true\n  level: ${level}\n  scale: 100\n  voltage: 4187\n  temperature: 250\n  technology: Li-ion\n  Charging state: 1\n  Charging policy: 1\n  Capacity level: 3\n`,
  );
}

function dumpsysInputMethod(ctx: CommandContext): void {
  const rt = ctx.host.phone.runtime;
  const id = String(rt.state.settings.secure.default_input_method);
  const shown = rt.state.focus !== null;
  ctx.out(`Current Input Method Manager state:\n  Input Methods: mMethodMapUpdateCount=2\n    InputMethod #0:\n      mId=${DEFAULT_IME}\n    InputMethod #1:\n      mId=${ADB_KEYBOARD_IME}\n  mCurMethodId=${id}\n  mCurFocusedWindowSoftInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE\n  mInputShown=${shown}\n  mSystemReady=true mInteractive=${rt.state.screenOn}\n  mShowRequested=${shown} mShowExplicitlyRequested=false mShowForced=false\n`);
}

function dumpsysPower(ctx: CommandContext): void {
  const on = ctx.host.phone.runtime.state.screenOn;
  ctx.out(`POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mWakefulness=${on ? "Awake" : "Asleep"}\n  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=2\n  mHoldingDisplaySuspendBlocker=${on}\n  Display Power: state=${on ? "ON" : "OFF"}\n`);
}


const dumpsys = (ctx: CommandContext) => {
  const [service, ...rest] = ctx.args;
  switch (service) {
    case "window":
      if (rest[0] === "displays") ctx.out(dumpsysWindowDisplays(ctx.host.phone));
      dumpsysWindow(ctx);
      return 0;
    case "package":
      return dumpsysPackage(ctx, rest);
    case "activity":
      if (rest[0] === "processes" || rest[0] === "p") return dumpsysProcesses(ctx, rest.slice(1));
      if (rest[0] === "top") {
        const ra = ctx.host.phone.runtime.resumedActivity();
        ctx.out(`TASK ${ra.package} id=${taskId(ra.package)} userId=0\n  ACTIVITY ${ra.package}/${short(ra.package, ra.activity)} ${hex("ar" + ra.package + ra.activity)} pid=${4000 + taskId(ra.package)}\n`);
        return 0;
      }
      dumpsysActivities(ctx);
      return 0;
    case "battery":
      dumpsysBattery(ctx);
      return 0;
    case "input_method":
      dumpsysInputMethod(ctx);
      return 0;
    case "power":
      dumpsysPower(ctx);
      return 0;
    case "display":
      ctx.out(dumpsysDisplay(ctx.host.phone));
      return 0;
    case "input":
      ctx.out(dumpsysInput(ctx.host.phone));
      return 0;
    case "SurfaceFlinger": {
      const out = dumpsysSurfaceFlinger(ctx.host.phone, rest);
      if (out === null) {
        ctx.err("SurfaceFlinger: only `dumpsys SurfaceFlinger --display-id` is kept on this phone\n");
        return 1;
      }
      ctx.out(out);
      return 0;
    }
    case undefined:
      ctx.out("Currently running services:\n  SurfaceFlinger\n  activity\n  battery\n  display\n  input\n  input_method\n  package\n  power\n  window\n");
      return 0;
    case "-l":
      ctx.out("Currently running services:\n  SurfaceFlinger\n  activity\n  battery\n  display\n  input\n  input_method\n  package\n  power\n  window\n");
      return 0;
    default:
      ctx.err(`Can't find service: ${service}\n`);
      return 0;
  }
};

const cmd = (ctx: CommandContext) => {
  const [service, ...rest] = ctx.args;
  const sub = { ...ctx, args: rest, argv: [service ?? "cmd", ...rest] };
  switch (service) {
    case "package":
      return pm(sub);
    case "activity":
      return am(sub);
    case "input_method":
      return ime(sub);
    case "settings":
      return settings(sub);
    case "window":
      return wm(sub);
    case "statusbar":
      if (rest[0] === "expand-notifications" || rest[0] === "expand-settings") ctx.host.phone.runtime.setShade(true);
      else if (rest[0] === "collapse") ctx.host.phone.runtime.setShade(false);
      else {
        ctx.err("Status bar (statusbar) commands:\n  expand-notifications\n  expand-settings\n  collapse\n");
        return 1;
      }
      return 0;
    default:
      ctx.err(`cmd: Can't find service: ${service ?? ""}\n`);
      return 20;
  }
};

export function registerActivity(r: CommandRegistry): void {
  r.set("am", am);
  r.set("monkey", monkey);
  r.set("pm", pm);
  r.set("ime", ime);
  r.set("settings", settings);
  r.set("wm", wm);
  r.set("dumpsys", dumpsys);
  r.set("cmd", cmd);
}
