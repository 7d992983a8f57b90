// The package manager as Android 14 answers it: pm / cmd package (list, path, clear, resolve-activity,
// query-activities with intent filters, list features, dump, install refusals) and `dumpsys package`.
import { createHash } from "node:crypto";
import type { App } from "../../scenario/schema.ts";
import type { ScenarioRuntime } from "../../scenario/runtime.ts";
import type { CommandContext } from "../types.ts";

export const SYSTEM_PACKAGES = [
  "android",
  "com.android.systemui",
  "com.android.settings",
  "com.android.shell",
  "com.android.phone",
  "com.android.providers.settings",
  "com.android.permissioncontroller",
  "com.android.inputmethod.latin",
  "com.android.adbkeyboard",
  "com.google.android.apps.nexuslauncher",
  "com.android.chrome",
  "com.google.android.gms",
];

export const FEATURES = [
  "android.hardware.audio.output",
  "android.hardware.bluetooth",
  "android.hardware.bluetooth_le",
  "android.hardware.camera",
  "android.hardware.camera.any",
  "android.hardware.camera.autofocus",
  "android.hardware.camera.flash",
  "android.hardware.camera.front",
  "android.hardware.faketouch",
  "android.hardware.fingerprint",
  "android.hardware.location",
  "android.hardware.location.gps",
  "android.hardware.location.network",
  "android.hardware.microphone",
  "android.hardware.nfc",
  "android.hardware.ram.normal",
  "android.hardware.screen.landscape",
  "android.hardware.screen.portrait",
  "android.hardware.sensor.accelerometer",
  "android.hardware.sensor.compass",
  "android.hardware.sensor.gyroscope",
  "android.hardware.sensor.light",
  "android.hardware.sensor.proximity",
  "android.hardware.telephony",
  "android.hardware.telephony.gsm",
  "android.hardware.touchscreen",
  "android.hardware.touchscreen.multitouch",
  "android.hardware.touchscreen.multitouch.distinct",
  "android.hardware.touchscreen.multitouch.jazzhand",
  "android.hardware.usb.accessory",
  "android.hardware.usb.host",
  "android.hardware.vulkan.level=1",
  "android.hardware.vulkan.version=4206592",
  "android.hardware.wifi",
  "android.hardware.wifi.direct",
  "android.software.activities_on_secondary_displays",
  "android.software.app_widgets",
  "android.software.autofill",
  "android.software.backup",
  "android.software.companion_device_setup",
  "android.software.device_admin",
  "android.software.home_screen",
  "android.software.input_methods",
  "android.software.live_wallpaper",
  "android.software.managed_users",
  "android.software.midi",
  "android.software.picture_in_picture",
  "android.software.print",
  "android.software.secure_lock_screen",
  "android.software.verified_boot",
  "android.software.webview",
  "reqGlEsVersion=0x30002",
];

const hex = (s: string, n = 7) => createHash("md5").update(s).digest("hex").slice(0, n);
export const appUid = (pkg: string) => 10_000 + 100 + (Number.parseInt(hex(pkg, 4), 16) % 200);
const short = (pkg: string, activity: string) => (activity.startsWith(pkg + ".") ? activity.slice(pkg.length) : activity);
const flat = (pkg: string, activity: string) => `${pkg}/${short(pkg, activity)}`;

export interface IntentFilter {
  actions: string[];
  categories: string[];
  schemes: string[];
  authorities: string[];
  paths: string[];
}

export interface ActivityDecl {
  pkg: string;
  name: string;
  filters: IntentFilter[];
}

/** A deeplink pattern as the intent filter a manifest would declare for it. */
function deeplinkFilter(pattern: string): IntentFilter {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?{]*)([^?]*)/i.exec(pattern);
  const scheme = m?.[1] ?? pattern.split(":")[0]!;
  const host = m?.[2] ?? "";
  const path = (m?.[3] ?? "").replace(/\{\w+\}.*$/, "");
  return { actions: ["android.intent.action.VIEW"], categories: ["android.intent.category.DEFAULT", "android.intent.category.BROWSABLE"], schemes: [scheme], authorities: host ? [host] : [], paths: path && path !== "/" ? [path] : [] };
}

/** Every activity an app declares: its launcher activity, one per distinct screen activity, deeplink filters on their targets. */
export function activitiesOf(rt: ScenarioRuntime, app: App): ActivityDecl[] {
  const main = rt.activityOf(app).activity;
  const byName = new Map<string, ActivityDecl>();
  const decl = (name: string) => {
    let d = byName.get(name);
    if (!d) byName.set(name, (d = { pkg: app.package, name, filters: [] }));
    return d;
  };
  decl(main).filters.push({ actions: ["android.intent.action.MAIN"], categories: ["android.intent.category.LAUNCHER"], schemes: [], authorities: [], paths: [] });
  for (const s of app.screens) decl(rt.activityOf(app, s).activity);
  for (const dl of app.deeplinks) {
    const screen = app.screens.find((s) => s.id === dl.screen);
    const target = decl(rt.activityOf(app, screen).activity);
    const f = deeplinkFilter(dl.pattern);
    const same = target.filters.find((x) => x.schemes[0] === f.schemes[0] && x.authorities[0] === f.authorities[0] && x.paths[0] === f.paths[0]);
    if (!same) target.filters.push(f);
  }
  return [...byName.values()];
}

export interface IntentQuery {
  action?: string;
  data?: string;
  categories: string[];
  component?: string;
  pkg?: string;
}

/** Parses the intent arguments of resolve-activity / query-activities (`-a -d -c -n -p`, or a bare package or URI). */
export function parseIntentArgs(args: string[]): { intent: IntentQuery; brief: boolean; components: boolean } {
  const intent: IntentQuery = { categories: [] };
  let brief = false;
  let components = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = () => args[++i] ?? "";
    if (a === "--brief") brief = true;
    else if (a === "--components") components = true;
    else if (a === "-a") intent.action = next();
    else if (a === "-d") intent.data = next();
    else if (a === "-c") intent.categories.push(next());
    else if (a === "-n") intent.component = next();
    else if (a === "-p") intent.pkg = next();
    else if (a === "--user" || a === "-t" || a === "-f" || a === "--query-flags") next();
    else if (!a.startsWith("-")) {
      if (a.includes("/")) intent.component = a;
      else if (a.includes(":")) intent.data = a;
      else intent.pkg = a;
    }
  }
  return { intent, brief, components };
}

function filterMatches(f: IntentFilter, it: IntentQuery): number {
  if (it.action && !f.actions.includes(it.action)) return 0;
  if (!it.action && !f.actions.includes("android.intent.action.MAIN") && !it.data) return 0;
  for (const c of it.categories) if (c !== "android.intent.category.DEFAULT" && !f.categories.includes(c)) return 0;
  if (it.data) {
    let uri: URL;
    try {
      uri = new URL(it.data);
    } catch {
      return 0;
    }
    const scheme = uri.protocol.replace(/:$/, "");
    if (!f.schemes.includes(scheme)) return 0;
    if (f.authorities.length && !f.authorities.includes(uri.host)) return 0;
    if (f.paths.length && !f.paths.some((p) => uri.pathname.startsWith(p))) return 0;
    return f.paths.length ? 0x508000 : f.authorities.length ? 0x308000 : 0x208000; // MATCH_CATEGORY_PATH / HOST / SCHEME
  }
  if (f.schemes.length) return 0;
  return 0x108000; // MATCH_CATEGORY_EMPTY
}

/** The activities an intent resolves to, best match first. */
export function queryActivities(rt: ScenarioRuntime, it: IntentQuery): { decl: ActivityDecl; match: number; isDefault: boolean }[] {
  const out: { decl: ActivityDecl; match: number; isDefault: boolean }[] = [];
  for (const app of rt.apps.values()) {
    if (it.pkg && app.package !== it.pkg) continue;
    for (const decl of activitiesOf(rt, app)) {
      if (it.component) {
        const [pkg, cls = ""] = it.component.split("/") as [string, string?];
        const name = cls.startsWith(".") ? pkg + cls : cls;
        if (pkg === app.package && name === decl.name) out.push({ decl, match: 0x108000, isDefault: false });
        continue;
      }
      let best: { f: IntentFilter; match: number } | null = null;
      for (const f of decl.filters) {
        const match = filterMatches(f, it);
        if (match && (!best || match > best.match)) best = { f, match };
      }
      // isDefault says whether the matching filter declares CATEGORY_DEFAULT
      if (best) out.push({ decl, match: best.match, isDefault: best.f.categories.includes("android.intent.category.DEFAULT") });
    }
  }
  return out.sort((a, b) => b.match - a.match);
}

const resolveLine = (r: { match: number; isDefault: boolean }) => `priority=0 preferredOrder=0 match=0x${r.match.toString(16)} specificIndex=-1 isDefault=${r.isDefault}`;

function activityInfo(rt: ScenarioRuntime, d: ActivityDecl, indent: string): string {
  const app = rt.appByPackage(d.pkg)!;
  return [
    `${indent}ActivityInfo:`,
    `${indent}  name=${d.name}`,
    `${indent}  packageName=${d.pkg}`,
    `${indent}  labelRes=0x7f130000 nonLocalizedLabel=${app.label} icon=0x7f0f0000`,
    `${indent}  enabled=true exported=true directBootAware=false`,
    `${indent}  taskAffinity=${d.pkg} targetActivity=null persistableMode=PERSIST_ROOT_ONLY`,
    `${indent}  launchMode=0 flags=0x3 privateFlags=0x0 theme=0x7f140000`,
    `${indent}  screenOrientation=-1 configChanges=0x0 softInputMode=0x0`,
    `${indent}  lockTaskLaunchMode=LOCK_TASK_LAUNCH_MODE_DEFAULT`,
    `${indent}  resizeMode=RESIZE_MODE_RESIZEABLE`,
    `${indent}  knownActivityEmbeddingCerts=null`,
    `${indent}  ApplicationInfo:`,
    `${indent}    name=null`,
    `${indent}    packageName=${d.pkg}`,
    `${indent}    labelRes=0x7f130000 nonLocalizedLabel=${app.label} icon=0x7f0f0000 banner=0x0`,
    `${indent}    processName=${d.pkg}`,
    `${indent}    taskAffinity=${d.pkg}`,
    `${indent}    uid=${appUid(d.pkg)} flags=0x38c8be46 privateFlags=0x24001000 theme=0x7f140000`,
    `${indent}    requiresSmallestWidthDp=0 compatibleWidthLimitDp=0 largestWidthLimitDp=0`,
    `${indent}    sourceDir=${codePath(d.pkg)}/base.apk`,
    `${indent}    dataDir=/data/user/0/${d.pkg}`,
    `${indent}    enabled=true minSdkVersion=26 targetSdkVersion=34 versionCode=1 targetSandboxVersion=1`,
  ].join("\n");
}

const codePath = (pkg: string) => `/data/app/~~${Buffer.from(hex(pkg + "code", 16), "hex").toString("base64url").slice(0, 22)}==/${pkg}-${Buffer.from(hex(pkg + "dir", 16), "hex").toString("base64url").slice(0, 22)}==`;

function resolveActivity(ctx: CommandContext, args: string[]): number {
  const rt = ctx.host.phone.runtime;
  const { intent, brief, components } = parseIntentArgs(args);
  const found = queryActivities(rt, intent);
  if (found.length === 0) {
    ctx.out("No activity found\n");
    return 0;
  }
  if (found.length > 1 && !intent.pkg && !intent.component && new Set(found.map((f) => f.decl.pkg)).size > 1) {
    // several apps answer: Android resolves to the chooser
    if (components || brief) ctx.out(`${brief ? "priority=0 preferredOrder=0 match=0x0 specificIndex=-1 isDefault=false\n" : ""}android/com.android.internal.app.ResolverActivity\n`);
    else ctx.out("priority=0 preferredOrder=0 match=0x0 specificIndex=-1 isDefault=false\n  ActivityInfo:\n    name=com.android.internal.app.ResolverActivity\n    packageName=android\n");
    return 0;
  }
  const r = found[0]!;
  if (components) ctx.out(`${flat(r.decl.pkg, r.decl.name)}\n`);
  else if (brief) ctx.out(`${resolveLine(r)}\n${flat(r.decl.pkg, r.decl.name)}\n`);
  else ctx.out(`${resolveLine(r)}\n${activityInfo(rt, r.decl, "  ")}\n`);
  return 0;
}

function queryActivitiesCommand(ctx: CommandContext, args: string[]): number {
  const rt = ctx.host.phone.runtime;
  const { intent, brief, components } = parseIntentArgs(args);
  const found = queryActivities(rt, intent);
  if (found.length === 0) {
    ctx.out("No activities found\n");
    return 0;
  }
  if (components) {
    for (const r of found) ctx.out(`${flat(r.decl.pkg, r.decl.name)}\n`);
    return 0;
  }
  ctx.out(`${found.length} activities found:\n`);
  found.forEach((r, i) => {
    ctx.out(`  Activity #${i}:\n    ${resolveLine(r)}\n`);
    ctx.out(brief ? `    ${flat(r.decl.pkg, r.decl.name)}\n` : `${activityInfo(rt, r.decl, "    ")}\n`);
  });
  return 0;
}

/** Permissions an app requests: network for all, notifications when it shows a notification prompt. */
function permissionsOf(app: App): { install: string[]; runtime: string[] } {
  const runtime = new Set<string>();
  for (const p of app.popups) {
    if (p.kind !== "permission") continue;
    const text = JSON.stringify(p).toLowerCase();
    if (text.includes("notif")) runtime.add("android.permission.POST_NOTIFICATIONS");
    if (text.includes("camera")) runtime.add("android.permission.CAMERA");
    if (text.includes("location")) runtime.add("android.permission.ACCESS_FINE_LOCATION");
    if (text.includes("contact")) runtime.add("android.permission.READ_CONTACTS");
    if (text.includes("photo") || text.includes("media")) runtime.add("android.permission.READ_MEDIA_IMAGES");
  }
  return { install: ["android.permission.INTERNET", "android.permission.ACCESS_NETWORK_STATE", "android.permission.WAKE_LOCK"], runtime: [...runtime].sort() };
}

function filterLines(f: IntentFilter, indent: string): string[] {
  const l = [...f.actions.map((a) => `${indent}Action: "${a}"`), ...f.categories.map((c) => `${indent}Category: "${c}"`), ...f.schemes.map((s) => `${indent}Scheme: "${s}"`)];
  for (const a of f.authorities) l.push(`${indent}Authority: "${a}": -1`);
  for (const p of f.paths) l.push(`${indent}Path: "PatternMatcher{PREFIX: ${p}}"`);
  if (f.schemes.length) l.push(`${indent}AutoVerify=false`);
  return l;
}

export function dumpsysPackage(ctx: CommandContext, args: string[]): number {
  const rt = ctx.host.phone.runtime;
  const names = args.filter((a) => !a.startsWith("-") && a !== "packages" && a !== "p");
  const apps = names.length ? [...rt.apps.values()].filter((a) => names.includes(a.package)) : [...rt.apps.values()];
  if (names.length && apps.length === 0) {
    // Android prints the sections with nothing in them for a package it does not know
    ctx.out("Dexopt state:\n  Unable to find package: " + names[0] + "\n\nCompiler stats:\n  Unable to find package: " + names[0] + "\n");
    return 0;
  }
  const out: string[] = ["Activity Resolver Table:"];
  const schemes = new Map<string, string[]>();
  const actions = new Map<string, string[]>();
  for (const app of apps) {
    for (const d of activitiesOf(rt, app)) {
      d.filters.forEach((f, i) => {
        const head = `        ${hex(d.pkg + d.name)} ${flat(d.pkg, d.name)} filter ${hex(d.name + i)}`;
        const lines = [head, ...filterLines(f, "          ")];
        if (f.schemes.length) for (const s of f.schemes) schemes.set(s, [...(schemes.get(s) ?? []), ...lines]);
        else for (const a of f.actions) actions.set(a, [...(actions.get(a) ?? []), ...lines]);
      });
    }
  }
  if (schemes.size) {
    out.push("  Schemes:");
    for (const [s, lines] of schemes) out.push(`      ${s}:`, ...lines);
    out.push("");
  }
  if (actions.size) {
    out.push("  Non-Data Actions:");
    for (const [a, lines] of actions) out.push(`      ${a}:`, ...lines);
    out.push("");
  }
  out.push("Permissions:", "");
  out.push("Packages:");
  for (const app of apps) {
    const pkg = app.package;
    const perms = permissionsOf(app);
    const runningNow = (rt.state.apps[app.id]?.stack.length ?? 0) > 0;
    const uid = appUid(pkg);
    out.push(
      `  Package [${pkg}] (${hex(pkg)}):`,
      `    userId=${uid}`,
      `    pkg=Package{${hex("p" + pkg)} ${pkg}}`,
      `    codePath=${codePath(pkg)}`,
      `    resourcePath=${codePath(pkg)}`,
      `    legacyNativeLibraryDir=${codePath(pkg)}/lib`,
      `    extractNativeLibs=false`,
      `    primaryCpuAbi=arm64-v8a`,
      `    secondaryCpuAbi=null`,
      `    cpuAbiOverride=null`,
      `    versionCode=1 minSdk=26 targetSdk=34`,
      `    minExtensionVersions=[]`,
      `    versionName=1.0`,
      `    usesNonSdkApi=false`,
      `    splits=[base]`,
      `    apkSigningVersion=3`,
      `    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]`,
      `    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION ALLOW_AUDIO_PLAYBACK_CAPTURE PRIVATE_FLAG_ALLOW_NATIVE_HEAP_POINTER_TAGGING ]`,
      `    forceQueryable=false`,
      `    dataDir=/data/user/0/${pkg}`,
      `    supportsScreens=[small, medium, large, xlarge, resizeable, anyDensity]`,
      `    usesLibraries:`,
      `      android.test.base`,
      `    timeStamp=2026-11-01 10:00:00`,
      `    lastUpdateTime=2026-11-01 10:00:00`,
      `    installerPackageName=com.android.vending`,
      `    signatures=PackageSignatures{${hex("sig" + pkg)} version:3, signatures:[${hex("cert" + pkg, 8)}], past signatures:[]}`,
      `    installPermissionsFixed=true`,
      `    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]`,
      `    declared permissions:`,
      `    requested permissions:`,
      ...[...perms.install, ...perms.runtime].map((p) => `      ${p}`),
      `    install permissions:`,
      ...perms.install.map((p) => `      ${p}: granted=true`),
      `    User 0: ceDataInode=${Number.parseInt(hex("inode" + pkg, 5), 16)} installed=true hidden=false suspended=false distractionFlags=0 stopped=${runningNow ? "false" : "true"} notLaunched=false enabled=0 instant=false virtual=false quarantined=false`,
      `      gids=[3003]`,
      `      runtime permissions:`,
      ...perms.runtime.map((p) => `        ${p}: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]`),
      `      enabledComponents:`,
      `      disabledComponents:`,
      `    activities:`,
      ...activitiesOf(rt, app).map((d) => `      ${flat(d.pkg, d.name)}`),
      "",
    );
  }
  ctx.out(out.join("\n") + "\n");
  return 0;
}

function installFailure(ctx: CommandContext, args: string[]): number {
  const file = args.filter((a, i) => !a.startsWith("-") && !["-S", "-i", "--user", "-p", "--install-location", "--originating-uri", "--referrer", "--abi"].includes(args[i - 1] ?? "")).at(-1);
  let data = ctx.stdin;
  if (file) {
    try {
      data = ctx.host.fs.readFile(ctx.host.fs.normalize(file, ctx.shell.cwd));
    } catch {
      ctx.err(`Error: Unable to open file: ${file}\nConsider using a file under /data/local/tmp/\n`);
      ctx.out(`Error: Can't open file: ${file}\n`);
      return 1;
    }
  }
  const tmp = `/data/app/vmdl${100_000_000 + (data.length % 900_000_000)}.tmp/base.apk`;
  if (data.length < 4 || data.readUInt32LE(0) !== 0x04034b50) {
    ctx.out(`Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse ${tmp}: Failed to load asset path ${tmp}]\n`);
    return 1;
  }
  // a real APK: this phone runs scenario apps, not Android code
  ctx.out(`Failure [INSTALL_FAILED_INVALID_APK: Failed to extract native libraries: this virtual phone cannot run APKs; describe the app in a scenario file instead]\n`);
  return 1;
}

export function packageManager(ctx: CommandContext): number {
  const [sub, ...rest] = ctx.args;
  const rt = ctx.host.phone.runtime;
  const allPackages = () => [...new Set([...SYSTEM_PACKAGES, ...[...rt.apps.values()].map((a) => a.package)])];
  switch (sub) {
    case "list":
      if (rest[0] === "packages") return listPackages(ctx, rest.slice(1));
      if (rest[0] === "features") {
        for (const f of FEATURES) ctx.out(`feature:${f}\n`);
        return 0;
      }
      if (rest[0] === "users") {
        ctx.out("Users:\n\tUserInfo{0:Owner:c13} running\n");
        return 0;
      }
      if (rest[0] === "libraries") {
        ctx.out("library:android.test.base\nlibrary:android.test.mock\nlibrary:android.test.runner\nlibrary:javax.obex\nlibrary:org.apache.http.legacy\n");
        return 0;
      }
      if (rest[0] === "permissions") {
        ctx.out("All Permissions:\n\npermission:android.permission.INTERNET\npermission:android.permission.POST_NOTIFICATIONS\npermission:android.permission.CAMERA\n");
        return 0;
      }
      break;
    case "path": {
      const p = rest.filter((a) => !a.startsWith("-")).at(-1) ?? "";
      if (!allPackages().includes(p)) return 1;
      ctx.out(`package:${codePath(p)}/base.apk\n`);
      return 0;
    }
    case "clear": {
      const app = rt.appByPackage(rest.at(-1) ?? "");
      if (!app) {
        ctx.out("Failed\n");
        return 1;
      }
      rt.forceStop(app.id);
      rt.state.apps[app.id]!.vars = structuredClone(app.state) as Record<string, unknown>;
      rt.touch();
      ctx.out("Success\n");
      return 0;
    }
    case "grant":
    case "revoke": {
      const [pkg, perm] = rest.filter((a) => !a.startsWith("-"));
      const app = pkg ? rt.appByPackage(pkg) : undefined;
      if (!app) {
        ctx.err(`Exception occurred while executing '${sub}':\njava.lang.IllegalArgumentException: Unknown package: ${pkg ?? ""}\n`);
        return 255;
      }
      if (!perm || ![...permissionsOf(app).install, ...permissionsOf(app).runtime].includes(perm)) {
        ctx.err(`Exception occurred while executing '${sub}':\njava.lang.SecurityException: Package ${pkg} has not requested permission ${perm ?? ""}\n`);
        return 255;
      }
      return 0;
    }
    case "resolve-activity":
      return resolveActivity(ctx, rest);
    case "query-activities":
      return queryActivitiesCommand(ctx, rest);
    case "dump":
      return dumpsysPackage(ctx, rest);
    case "install":
    case "install-existing":
      if (sub === "install-existing") {
        const p = rest.at(-1) ?? "";
        if (allPackages().includes(p)) {
          ctx.out(`Package ${p} installed for user: 0\n`);
          return 0;
        }
        ctx.out(`Failure [INSTALL_FAILED_INVALID_URI: Package ${p} doesn't exist]\n`);
        return 1;
      }
      return installFailure(ctx, rest);
    case "uninstall": {
      const p = rest.filter((a) => !a.startsWith("-")).at(-1) ?? "";
      // scenario apps stay installed (their screens are the phone's world); an unknown package fails as on a phone
      ctx.out(allPackages().includes(p) ? "Failure [DELETE_FAILED_USER_RESTRICTED]\n" : "Failure [DELETE_FAILED_INTERNAL_ERROR]\n");
      return 1;
    }
    case "enable":
    case "disable":
    case "disable-user": {
      const p = rest.filter((a) => !a.startsWith("-")).at(-1) ?? "";
      ctx.err(`Exception occurred while executing '${sub}':\njava.lang.SecurityException: Shell cannot change component state for ${p} to ${sub === "enable" ? "1" : "3"}\n`);
      return 255;
    }
  }
  ctx.err(
    "Package manager (package) commands:\n  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U] [--show-versioncode] [--apex-only] [--uid UID] [--user USER_ID] [FILTER]\n  list features\n  path [--user USER_ID] PACKAGE\n  clear [--user USER_ID] PACKAGE\n  resolve-activity [--brief] [--components] [--query-flags FLAGS] [--user USER_ID] INTENT\n  query-activities [--brief] [--components] [--query-flags FLAGS] [--user USER_ID] INTENT\n  install [-S BYTES] [PATH]\n  dump PACKAGE\n",
  );
  return sub ? 1 : 0;
}

function listPackages(ctx: CommandContext, args: string[]): number {
  const rt = ctx.host.phone.runtime;
  const third = args.includes("-3");
  const system = args.includes("-s");
  const withPath = args.includes("-f");
  const versions = args.includes("--show-versioncode");
  const uids = args.includes("-U");
  const filter = args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "--user" && args[i - 1] !== "--uid");
  const user = [...rt.apps.values()].map((a) => a.package);
  const all = third ? user.filter((p) => !SYSTEM_PACKAGES.includes(p)) : system ? SYSTEM_PACKAGES : [...new Set([...SYSTEM_PACKAGES, ...user])];
  for (const p of all) {
    if (filter && !p.includes(filter)) continue;
    ctx.out(`package:${withPath ? `${codePath(p)}/base.apk=` : ""}${p}${versions ? " versionCode:1" : ""}${uids ? ` uid:${appUid(p)}` : ""}\n`);
  }
  return 0;
}
