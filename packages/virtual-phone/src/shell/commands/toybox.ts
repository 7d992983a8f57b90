// Toybox applets clients call to learn about the phone: stat, md5sum, df, date +FORMAT, ip, ifconfig, svc, content,
// uname, env, and small text tools (basename, cut, tr, sort, uniq, seq, tee, base64), plus `toybox <applet>` itself.
import { createHash } from "node:crypto";
import { type FsError, type FsNode } from "../../device/filesystem.ts";
import { KERNEL_VERSION, MEM_TOTAL_KB } from "../../device/proc.ts";
import type { CommandContext, CommandRegistry, ShellCommand } from "../types.ts";

export const TOYBOX_VERSION = "0.8.9-android";
export const WIFI = { ip: "192.168.1.42", prefix: 24, broadcast: "192.168.1.255", gateway: "192.168.1.1", mac: "02:00:00:44:55:66" };

const pad2 = (n: number) => String(n).padStart(2, "0");
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** strftime in UTC (the phone's persist.sys.timezone). */
export function strftime(format: string, d: Date): string {
  return format.replace(/%([a-zA-Z%])/g, (_m, c: string) => {
    switch (c) {
      case "Y":
        return String(d.getUTCFullYear());
      case "y":
        return pad2(d.getUTCFullYear() % 100);
      case "C":
        return pad2(Math.floor(d.getUTCFullYear() / 100));
      case "m":
        return pad2(d.getUTCMonth() + 1);
      case "d":
        return pad2(d.getUTCDate());
      case "e":
        return String(d.getUTCDate()).padStart(2, " ");
      case "H":
        return pad2(d.getUTCHours());
      case "I":
        return pad2(d.getUTCHours() % 12 || 12);
      case "M":
        return pad2(d.getUTCMinutes());
      case "S":
        return pad2(d.getUTCSeconds());
      case "N":
        return String(d.getUTCMilliseconds() * 1_000_000).padStart(9, "0");
      case "s":
        return String(Math.floor(d.getTime() / 1000));
      case "p":
        return d.getUTCHours() < 12 ? "AM" : "PM";
      case "a":
        return DAYS[d.getUTCDay()]!.slice(0, 3);
      case "A":
        return DAYS[d.getUTCDay()]!;
      case "b":
      case "h":
        return MONTHS[d.getUTCMonth()]!.slice(0, 3);
      case "B":
        return MONTHS[d.getUTCMonth()]!;
      case "j": {
        const start = Date.UTC(d.getUTCFullYear(), 0, 1);
        return String(Math.floor((d.getTime() - start) / 86_400_000) + 1).padStart(3, "0");
      }
      case "u":
        return String(d.getUTCDay() || 7);
      case "w":
        return String(d.getUTCDay());
      case "Z":
        return "UTC";
      case "z":
        return "+0000";
      case "T":
        return strftime("%H:%M:%S", d);
      case "D":
        return strftime("%m/%d/%y", d);
      case "F":
        return strftime("%Y-%m-%d", d);
      case "R":
        return strftime("%H:%M", d);
      case "c":
        return strftime("%a %b %e %H:%M:%S %Y", d);
      case "n":
        return "\n";
      case "t":
        return "\t";
      case "%":
        return "%";
      default:
        return `%${c}`;
    }
  });
}

const date = ({ args, out, err, host }: CommandContext) => {
  let when = new Date(host.phone.clock.now());
  let format = "%a %b %e %H:%M:%S %Z %Y";
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith("+")) format = a.slice(1);
    else if (a === "-d" || a === "--date") {
      const v = args[++i] ?? "";
      const t = v.startsWith("@") ? Number(v.slice(1)) * 1000 : Date.parse(v);
      if (Number.isNaN(t)) {
        err(`date: bad date '${v}'\n`);
        return 1;
      }
      when = new Date(t);
    } else if (a === "-u" || a === "-R") {
      if (a === "-R") format = "%a, %d %b %Y %H:%M:%S %z";
    } else if (/^\d{4,}/.test(a)) {
      err("date: cannot set date: Operation not permitted\n");
      return 1;
    }
  }
  out(`${strftime(format, when)}\n`);
  return 0;
};

function modeString(n: FsNode): string {
  const bits = "rwxrwxrwx";
  let s = n.kind === "dir" ? "d" : "-";
  for (let i = 0; i < 9; i++) s += n.mode & (1 << (8 - i)) ? bits[i] : "-";
  return s;
}

function inode(path: string): number {
  let h = 7;
  for (const c of path) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % 1_000_000;
}

const stat = (ctx: CommandContext) => {
  const fs = ctx.host.fs;
  let format: string | null = null;
  const files: string[] = [];
  for (let i = 0; i < ctx.args.length; i++) {
    const a = ctx.args[i]!;
    if (a === "-c" || a === "--format") format = ctx.args[++i] ?? "";
    else if (a.startsWith("--format=")) format = a.slice(9);
    else if (a === "-L" || a === "-f") continue;
    else files.push(a);
  }
  if (files.length === 0) {
    ctx.err("stat: Needs 1 argument\n");
    return 1;
  }
  let status = 0;
  for (const f of files) {
    const path = fs.normalize(f, ctx.shell.cwd);
    const n = fs.lookup(path);
    if (!n) {
      ctx.err(`stat: '${f}': No such file or directory\n`);
      status = 1;
      continue;
    }
    const size = fs.size(n);
    const onSdcard = path.startsWith("/sdcard");
    const [uid, user, gid, group] = onSdcard ? [0, "root", 9997, "everybody"] : path.startsWith("/data/local/tmp") ? [2000, "shell", 2000, "shell"] : [0, "root", 0, "root"];
    const type = n.kind === "dir" ? "directory" : size === 0 ? "regular empty file" : "regular file";
    const time = (s: number) => `${strftime("%Y-%m-%d %H:%M:%S", new Date(s * 1000))}.000000000 +0000`;
    if (format !== null) {
      ctx.out(
        format.replace(/%([a-zA-Z%])/g, (_m, c: string) => {
          switch (c) {
            case "s":
              return String(size);
            case "n":
              return f;
            case "N":
              return `'${f}'`;
            case "a":
              return n.mode.toString(8);
            case "A":
              return modeString(n);
            case "f":
              return fs.fullMode(n).toString(16);
            case "F":
              return type;
            case "u":
              return String(uid);
            case "U":
              return String(user);
            case "g":
              return String(gid);
            case "G":
              return String(group);
            case "i":
              return String(inode(path));
            case "h":
              return n.kind === "dir" ? String(2 + [...n.children.values()].filter((c2) => c2.kind === "dir").length) : "1";
            case "b":
              return String(Math.ceil(size / 512));
            case "B":
              return "512";
            case "o":
              return "4096";
            case "X":
            case "Y":
            case "Z":
              return String(n.mtime);
            case "x":
            case "y":
            case "z":
              return time(n.mtime);
            case "d":
              return onSdcard ? "58" : "64768";
            case "%":
              return "%";
            default:
              return `%${c}`;
          }
        }) + "\n",
      );
      continue;
    }
    ctx.out(
      `  File: ${f}\n  Size: ${size}\t Blocks: ${Math.ceil(size / 512) * 8 || 0}\t IO Blocks: 4096\t${type}\nDevice: ${onSdcard ? "3ah/58d" : "fd00h/64768d"}\t Inode: ${inode(path)}\t Links: ${n.kind === "dir" ? 2 : 1}\t Device type: 0,0\nAccess: (0${n.mode.toString(8)}/${modeString(n)})\tUid: (${String(uid).padStart(5)}/${String(user).padStart(8)})\tGid: (${String(gid).padStart(5)}/${String(group).padStart(8)})\nAccess: ${time(n.mtime)}\nModify: ${time(n.mtime)}\nChange: ${time(n.mtime)}\n`,
    );
  }
  return status;
};

function digest(algorithm: "md5" | "sha1" | "sha256"): ShellCommand {
  return (ctx) => {
    const files = ctx.args.filter((a) => !a.startsWith("-") || a === "-");
    const hash = (b: Buffer) => createHash(algorithm).update(b).digest("hex");
    if (files.length === 0) {
      ctx.out(`${hash(ctx.stdin)}  -\n`);
      return 0;
    }
    let status = 0;
    for (const f of files) {
      if (f === "-") {
        ctx.out(`${hash(ctx.stdin)}  -\n`);
        continue;
      }
      try {
        ctx.out(`${hash(ctx.host.fs.readFile(ctx.host.fs.normalize(f, ctx.shell.cwd)))}  ${f}\n`);
      } catch (e) {
        ctx.err(`${ctx.argv[0]}: ${f}: ${(e as FsError).reason ?? String(e)}\n`);
        status = 1;
      }
    }
    return status;
  };
}

function usedBytes(n: FsNode): number {
  if (n.kind === "file") return n.generate ? 0 : n.data.length;
  let s = 0;
  for (const c of n.children.values()) s += usedBytes(c);
  return s;
}

const df = (ctx: CommandContext) => {
  const human = ctx.args.some((a) => /^-[a-zA-Z]*h/.test(a));
  const sdcard = ctx.host.fs.lookup("/sdcard");
  const userKb = Math.ceil((sdcard ? usedBytes(sdcard) : 0) / 1024);
  const dataTotal = 115_127_212;
  const dataUsed = 21_837_892 + userKb;
  const rows: [string, number, number, string][] = [
    ["/dev/block/dm-5", 5_160_124, 5_144_892, "/"],
    ["tmpfs", 3_912_292, 1_652, "/dev"],
    ["tmpfs", 3_912_292, 0, "/mnt"],
    ["/dev/block/dm-6", 1_289_804, 1_285_100, "/system_ext"],
    ["/dev/block/dm-7", 3_241_232, 3_231_004, "/product"],
    ["/dev/block/dm-8", 786_432, 781_244, "/vendor"],
    ["/dev/block/dm-44", dataTotal, dataUsed, "/data"],
    ["/dev/fuse", dataTotal, dataUsed, "/storage/emulated"],
  ];
  const filter = ctx.args.filter((a) => !a.startsWith("-")).map((p) => ctx.host.fs.normalize(p, ctx.shell.cwd));
  const mountOf = (p: string): string => (p.startsWith("/sdcard") || p.startsWith("/storage") ? "/storage/emulated" : p.startsWith("/data") ? "/data" : "/");
  const shown = filter.length ? rows.filter((r) => filter.map(mountOf).includes(r[3])) : rows;
  const h = (kb: number) => {
    const units = ["K", "M", "G", "T"];
    let v = kb;
    let u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return `${v >= 10 || u === 0 ? Math.round(v) : v.toFixed(1)}${units[u]}`;
  };
  ctx.out(human ? "Filesystem        Size  Used Avail Use% Mounted on\n" : "Filesystem        1K-blocks     Used Available Use% Mounted on\n");
  for (const [fsName, total, used, mount] of shown) {
    const avail = total - used;
    const pct = `${Math.ceil((used / total) * 100)}%`;
    if (human) ctx.out(`${fsName.padEnd(17)}${h(total).padStart(5)} ${h(used).padStart(5)} ${h(avail).padStart(5)} ${pct.padStart(4)} ${mount}\n`);
    else ctx.out(`${fsName.padEnd(17)}${String(total).padStart(10)} ${String(used).padStart(8)} ${String(avail).padStart(9)} ${pct.padStart(4)} ${mount}\n`);
  }
  return 0;
};

const wifiOn = (ctx: CommandContext) => String(ctx.host.phone.runtime.state.settings.global.wifi_on ?? "1") !== "0" && String(ctx.host.phone.runtime.state.settings.global.airplane_mode_on ?? "0") !== "1";

const ip = (ctx: CommandContext) => {
  const args = ctx.args.filter((a) => !/^-[46f]$/.test(a) && a !== "inet" && a !== "inet6");
  const [obj = "", sub = "", ...rest] = args;
  const on = wifiOn(ctx);
  if (obj === "route" || obj === "r" || obj === "ro") {
    if (on) ctx.out(`${WIFI.ip.replace(/\.\d+$/, ".0")}/${WIFI.prefix} dev wlan0 proto kernel scope link src ${WIFI.ip}\n`);
    return 0;
  }
  if (obj === "addr" || obj === "a" || obj === "address" || obj === "link" || obj === "l") {
    const only = sub === "show" || sub === "list" ? (rest[0] === "dev" ? rest[1] : rest[0]) : sub && sub !== "show" ? sub : undefined;
    const link = obj === "link" || obj === "l";
    const ifaces = [
      `1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n` + (link ? "" : "    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n    inet6 ::1/128 scope host \n       valid_lft forever preferred_lft forever\n"),
      `2: wlan0: <BROADCAST,MULTICAST${on ? ",UP,LOWER_UP" : ""}> mtu 1500 qdisc mq state ${on ? "UP" : "DOWN"} group default qlen 3000\n    link/ether ${WIFI.mac} brd ff:ff:ff:ff:ff:ff\n` +
        (link || !on ? "" : `    inet ${WIFI.ip}/${WIFI.prefix} brd ${WIFI.broadcast} scope global wlan0\n       valid_lft forever preferred_lft forever\n    inet6 fe80::ff:fe44:5566/64 scope link \n       valid_lft forever preferred_lft forever\n`),
    ];
    const names = ["lo", "wlan0"];
    if (only && !names.includes(only)) {
      ctx.err(`Device "${only}" does not exist.\n`);
      return 1;
    }
    ifaces.forEach((t, i) => (!only || names[i] === only ? ctx.out(t) : undefined));
    return 0;
  }
  ctx.err("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\nwhere  OBJECT := { address | link | route }\n");
  return obj ? 1 : 255;
};

const ifconfig = (ctx: CommandContext) => {
  const on = wifiOn(ctx);
  const only = ctx.args.find((a) => !a.startsWith("-"));
  const lo = `lo        Link encap:Local Loopback  \n          inet addr:127.0.0.1  Mask:255.0.0.0 \n          inet6 addr: ::1/128 Scope: Host\n          UP LOOPBACK RUNNING  MTU:65536  Metric:1\n          RX packets:1204 errors:0 dropped:0 overruns:0 frame:0 \n          TX packets:1204 errors:0 dropped:0 overruns:0 carrier:0 \n          collisions:0 txqueuelen:1000 \n          RX bytes:118231 TX bytes:118231 \n\n`;
  const wlan = `wlan0     Link encap:Ethernet  HWaddr ${WIFI.mac}\n${on ? `          inet addr:${WIFI.ip}  Bcast:${WIFI.broadcast}  Mask:255.255.255.0 \n          inet6 addr: fe80::ff:fe44:5566/64 Scope: Link\n          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1\n` : "          BROADCAST MULTICAST  MTU:1500  Metric:1\n"}          RX packets:48213 errors:0 dropped:0 overruns:0 frame:0 \n          TX packets:30114 errors:0 dropped:0 overruns:0 carrier:0 \n          collisions:0 txqueuelen:3000 \n          RX bytes:61277312 TX bytes:4128854 \n\n`;
  if (only === "lo") ctx.out(lo);
  else if (only === "wlan0") ctx.out(wlan);
  else if (only) {
    ctx.err(`ifconfig: ${only}: No such device\n`);
    return 1;
  } else ctx.out(on ? wlan + lo : lo);
  return 0;
};

const svc = async (ctx: CommandContext) => {
  const [service, action, arg] = ctx.args;
  const rt = ctx.host.phone.runtime;
  const g = rt.state.settings.global;
  const toggle = (key: string) => {
    if (action !== "enable" && action !== "disable") return false;
    g[key] = action === "enable" ? "1" : "0";
    rt.touch();
    return true;
  };
  switch (service) {
    case "wifi":
      if (toggle("wifi_on")) return 0;
      break;
    case "data":
      if (toggle("mobile_data")) return 0;
      break;
    case "bluetooth":
      if (toggle("bluetooth_on")) return 0;
      break;
    case "nfc":
      if (action === "enable" || action === "disable") return 0;
      break;
    case "power":
      if (action === "stayon" && ["true", "false", "usb", "ac", "wireless"].includes(arg ?? "")) {
        g.stay_on_while_plugged_in = arg === "false" ? "0" : arg === "true" ? "7" : arg === "usb" ? "2" : arg === "ac" ? "1" : "4";
        return 0;
      }
      if (action === "reboot" || action === "shutdown") {
        await ctx.host.reboot?.(action === "reboot" ? (arg ?? "") : "shutdown");
        return 0;
      }
      break;
    case "usb":
      if (action === "getFunctions") {
        ctx.out("adb\n");
        return 0;
      }
      break;
  }
  ctx.err(
    service && ["wifi", "data", "bluetooth", "power", "usb", "nfc"].includes(service)
      ? `Control the ${service} manager\n\nusage: svc ${service} ${service === "power" ? "stayon [true|false|usb|ac|wireless]\n       svc power reboot [reason]\n       svc power shutdown" : service === "usb" ? "getFunctions" : "[enable|disable]"}\n`
      : "Available commands:\n    help     Show information about the subcommands\n    power    Control the power manager\n    data     Control mobile data connectivity\n    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n    nfc      Control NFC functions\n    bluetooth Control Bluetooth service\n",
  );
  return service ? 1 : 0;
};

/** `content query|insert|update|delete --uri content://settings/<table>`: the settings provider. */
const content = (ctx: CommandContext) => {
  const [sub, ...rest] = ctx.args;
  const opt = (name: string) => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const binds: Record<string, string> = {};
  rest.forEach((a, i) => {
    if (a !== "--bind") return;
    const m = /^([^:]+):[a-z]:([\s\S]*)$/.exec(rest[i + 1] ?? "");
    if (m) binds[m[1]!] = m[2]!;
  });
  const uri = opt("--uri");
  const usage = "usage: adb shell content [subcommand] [options]\n\nusage: adb shell content insert --uri <URI> [--user <USER_ID>] --bind <BINDING> [--bind <BINDING>...]\nusage: adb shell content update --uri <URI> [--user <USER_ID>] [--where <WHERE>] --bind <BINDING> [--bind <BINDING>...]\nusage: adb shell content delete --uri <URI> [--user <USER_ID>] --where <WHERE>\nusage: adb shell content query --uri <URI> [--user <USER_ID>] [--projection <PROJECTION>] [--where <WHERE>] [--sort <SORT_ORDER>]\n";
  if (!sub || !["query", "insert", "update", "delete"].includes(sub) || !uri) {
    ctx.err(sub && !uri ? "[ERROR] Content provider URI not specified. Did you specify --uri argument?\n" : usage);
    return sub ? 1 : 0;
  }
  const m = /^content:\/\/settings\/(system|secure|global)(?:\/([^/]+))?$/.exec(uri);
  if (!m) {
    ctx.err(`Error while accessing provider:${uri.replace(/^content:\/\//, "").split("/")[0]}\njava.lang.IllegalArgumentException: Unknown URI ${uri}\n`);
    return 1;
  }
  const rt = ctx.host.phone.runtime;
  const table = rt.state.settings[m[1] as "system" | "secure" | "global"];
  const where = opt("--where");
  const whereName = m[2] ?? (where ? /name\s*=\s*['"]?([^'"\s]+)['"]?/.exec(where)?.[1] : undefined);
  const keys = Object.keys(table).sort();
  if (sub === "query") {
    const projection = (opt("--projection") ?? "_id:name:value").split(":");
    const rows = keys.filter((k) => whereName === undefined || k === whereName);
    if (rows.length === 0) {
      ctx.out("No result found.\n");
      return 0;
    }
    rows.forEach((k, i) => {
      const cols: Record<string, string> = { _id: String(keys.indexOf(k) + 1), name: k, value: String(table[k]) };
      ctx.out(`Row: ${i} ${projection.map((p) => `${p}=${cols[p] ?? "NULL"}`).join(", ")}\n`);
    });
    return 0;
  }
  if (sub === "insert" || sub === "update") {
    const name = binds.name ?? whereName;
    if (!name || binds.value === undefined) {
      ctx.err(usage);
      return 1;
    }
    table[name] = binds.value;
    rt.touch();
    return 0;
  }
  if (whereName) delete table[whereName];
  rt.touch();
  return 0;
};

const uname = ({ args, out }: CommandContext) => {
  const flags = new Set(args.flatMap((a) => (a.startsWith("-") ? [...a.slice(1)] : [])));
  if (flags.has("a")) {
    out(`Linux localhost ${KERNEL_VERSION} #1 SMP PREEMPT Mon Oct 30 12:00:00 UTC 2023 aarch64 Toybox\n`);
    return 0;
  }
  const parts: string[] = [];
  if (flags.size === 0 || flags.has("s")) parts.push("Linux");
  if (flags.has("n")) parts.push("localhost");
  if (flags.has("r")) parts.push(KERNEL_VERSION);
  if (flags.has("v")) parts.push("#1 SMP PREEMPT Mon Oct 30 12:00:00 UTC 2023");
  if (flags.has("m") || flags.has("p")) parts.push("aarch64");
  if (flags.has("o")) parts.push("Toybox");
  out(parts.join(" ") + "\n");
  return 0;
};

function textOf(ctx: CommandContext, files: string[]): string {
  if (files.length === 0) return ctx.stdin.toString("utf8");
  return files.map((f) => ctx.host.fs.readFile(ctx.host.fs.normalize(f, ctx.shell.cwd)).toString("utf8")).join("");
}
const lines = (t: string) => (t === "" ? [] : t.replace(/\n$/, "").split("\n"));

const cut = (ctx: CommandContext) => {
  let delim = "\t";
  let fields = "";
  let chars = "";
  const files: string[] = [];
  for (let i = 0; i < ctx.args.length; i++) {
    const a = ctx.args[i]!;
    if (a === "-d") delim = ctx.args[++i] ?? "\t";
    else if (a.startsWith("-d")) delim = a.slice(2);
    else if (a === "-f") fields = ctx.args[++i] ?? "";
    else if (a.startsWith("-f")) fields = a.slice(2);
    else if (a === "-c") chars = ctx.args[++i] ?? "";
    else if (a.startsWith("-c")) chars = a.slice(2);
    else files.push(a);
  }
  const pick = (list: string, n: number) => {
    const out: number[] = [];
    for (const r of list.split(",")) {
      const [a, b] = r.split("-");
      const from = a ? Number(a) : 1;
      const to = r.includes("-") ? (b ? Number(b) : n) : from;
      for (let i = from; i <= Math.min(to, n); i++) out.push(i);
    }
    return out;
  };
  for (const l of lines(textOf(ctx, files))) {
    if (chars) ctx.out(pick(chars, l.length).map((i) => l[i - 1]).join("") + "\n");
    else {
      const parts = l.split(delim);
      ctx.out((parts.length === 1 ? l : pick(fields, parts.length).map((i) => parts[i - 1]).join(delim)) + "\n");
    }
  }
  return 0;
};

function trSet(s: string): string {
  const e = s.replace(/\\n/g, "\n").replace(/\\t/g, "\t").replace(/\\\\/g, "\\").replace(/\[:upper:\]/g, "A-Z").replace(/\[:lower:\]/g, "a-z").replace(/\[:digit:\]/g, "0-9").replace(/\[:space:\]/g, " \t\n\r\f\v");
  let out = "";
  for (let i = 0; i < e.length; i++) {
    if (e[i + 1] === "-" && i + 2 < e.length) {
      for (let c = e.charCodeAt(i); c <= e.charCodeAt(i + 2); c++) out += String.fromCharCode(c);
      i += 2;
    } else out += e[i];
  }
  return out;
}

const tr = (ctx: CommandContext) => {
  const del = ctx.args.includes("-d");
  const squeeze = ctx.args.includes("-s");
  const sets = ctx.args.filter((a) => !/^-[ds]+$/.test(a)).map(trSet);
  let t = ctx.stdin.toString("utf8");
  if (del) t = [...t].filter((c) => !sets[0]!.includes(c)).join("");
  else if (sets[1] !== undefined) {
    const [from, to] = sets as [string, string];
    t = [...t].map((c) => (from.includes(c) ? (to[Math.min(from.indexOf(c), to.length - 1)] ?? "") : c)).join("");
  }
  if (squeeze) {
    const set = sets.at(-1) ?? "";
    t = t.replace(/([\s\S])\1+/g, (m, c: string) => (set.includes(c) ? c : m));
  }
  ctx.out(t);
  return 0;
};

const sort = (ctx: CommandContext) => {
  const flags = ctx.args.filter((a) => a.startsWith("-")).join("");
  const ls = lines(textOf(ctx, ctx.args.filter((a) => !a.startsWith("-"))));
  ls.sort(flags.includes("n") ? (a, b) => Number.parseFloat(a) - Number.parseFloat(b) : undefined);
  if (flags.includes("r")) ls.reverse();
  const out = flags.includes("u") ? [...new Set(ls)] : ls;
  ctx.out(out.map((l) => l + "\n").join(""));
  return 0;
};

const uniq = (ctx: CommandContext) => {
  const count = ctx.args.includes("-c");
  const ls = lines(textOf(ctx, ctx.args.filter((a) => !a.startsWith("-"))));
  const out: [string, number][] = [];
  for (const l of ls) {
    if (out.length && out.at(-1)![0] === l) out.at(-1)![1]++;
    else out.push([l, 1]);
  }
  ctx.out(out.map(([l, n]) => (count ? `${String(n).padStart(7)} ${l}\n` : `${l}\n`)).join(""));
  return 0;
};

const seq = (ctx: CommandContext) => {
  const n = ctx.args.filter((a) => !a.startsWith("-") || /^-\d/.test(a)).map(Number);
  const [first, step, last] = n.length === 1 ? [1, 1, n[0]!] : n.length === 2 ? [n[0]!, 1, n[1]!] : [n[0]!, n[1]!, n[2]!];
  if (!step || n.some(Number.isNaN)) return 1;
  for (let v = first; step > 0 ? v <= last : v >= last; v += step) ctx.out(`${v}\n`);
  return 0;
};

const tee = (ctx: CommandContext) => {
  const append = ctx.args.includes("-a");
  for (const f of ctx.args.filter((a) => !a.startsWith("-"))) ctx.host.fs.writeFile(ctx.host.fs.normalize(f, ctx.shell.cwd), ctx.stdin, { append });
  ctx.out(ctx.stdin);
  return 0;
};

const base64 = (ctx: CommandContext) => {
  const decode = ctx.args.includes("-d");
  const files = ctx.args.filter((a) => !a.startsWith("-"));
  // bytes, not text: base64 is how binary files leave the phone through a text-only shell
  const data = files.length ? Buffer.concat(files.map((f) => ctx.host.fs.readFile(ctx.host.fs.normalize(f, ctx.shell.cwd)))) : ctx.stdin;
  if (decode) ctx.out(Buffer.from(data.toString("latin1").replace(/\s+/g, ""), "base64"));
  else ctx.out((data.toString("base64").match(/.{1,76}/g) ?? [""]).join("\n") + "\n");
  return 0;
};

const env = (ctx: CommandContext) => {
  for (const [k, v] of Object.entries(ctx.env).sort()) ctx.out(`${k}=${v}\n`);
  return 0;
};

const printenv = (ctx: CommandContext) => {
  if (ctx.args.length === 0) return env(ctx);
  let status = 0;
  for (const a of ctx.args) {
    if (ctx.env[a] === undefined) status = 1;
    else ctx.out(`${ctx.env[a]}\n`);
  }
  return status;
};

/** toybox free: bytes by default, -k -m -g for KiB MiB GiB, -h for short human sizes. */
const free = (ctx: CommandContext) => {
  const flag = ctx.args.find((a) => /^-[kmgh]$/.test(a))?.[1];
  const shift = flag === "k" ? 10 : flag === "m" ? 20 : flag === "g" ? 30 : 0;
  const human = (b: number) => {
    const units = ["", "K", "M", "G", "T"];
    let v = b;
    let u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return `${v >= 10 || u === 0 ? Math.round(v) : v.toFixed(1)}${units[u]}`;
  };
  const f = (kb: number) => (flag === "h" ? human(kb * 1024) : String(Math.floor((kb * 1024) / 2 ** shift))).padStart(12);
  const [total, free_, shared, buffers, cached, swapTotal, swapFree] = [MEM_TOTAL_KB, 1_204_332, 21_436, 5_140, 2_861_904, 4_194_300, 3_734_012];
  ctx.out(`${"".padEnd(7)}${["total", "used", "free", "shared", "buffers"].map((h) => h.padStart(12)).join("")}\n`);
  ctx.out(`Mem:   ${f(total)}${f(total - free_)}${f(free_)}${f(shared)}${f(buffers)}\n`);
  ctx.out(`-/+ buffers/cache: ${f(total - free_ - buffers - cached)}${f(free_ + buffers + cached)}\n`);
  ctx.out(`Swap:  ${f(swapTotal)}${f(swapTotal - swapFree)}${f(swapFree)}\n`);
  return 0;
};

export const TOYBOX_APPLETS = ["base64", "basename", "cat", "cut", "date", "df", "dirname", "echo", "env", "false", "free", "grep", "head", "id", "ifconfig", "ls", "md5sum", "mkdir", "nproc", "printenv", "printf", "ps", "pwd", "rm", "seq", "sha1sum", "sha256sum", "sleep", "sort", "stat", "tail", "tee", "test", "touch", "tr", "true", "uname", "uniq", "wc", "which", "whoami"];

export function registerToybox(r: CommandRegistry): void {
  r.set("date", date);
  r.set("stat", stat);
  r.set("md5sum", digest("md5"));
  r.set("sha1sum", digest("sha1"));
  r.set("sha256sum", digest("sha256"));
  r.set("df", df);
  r.set("ip", ip);
  r.set("ifconfig", ifconfig);
  r.set("svc", svc);
  r.set("content", content);
  r.set("uname", uname);
  r.set("cut", cut);
  r.set("tr", tr);
  r.set("sort", sort);
  r.set("uniq", uniq);
  r.set("seq", seq);
  r.set("tee", tee);
  r.set("base64", base64);
  r.set("env", env);
  r.set("printenv", printenv);
  r.set("free", free);
  r.set("nproc", ({ out }) => (out("8\n"), 0));
  r.set("basename", ({ args, out }) => {
    const [p = "", suffix] = args;
    let b = p.replace(/\/+$/, "").split("/").pop() || "/";
    if (suffix && b.endsWith(suffix) && b !== suffix) b = b.slice(0, -suffix.length);
    out(`${b}\n`);
    return 0;
  });
  r.set("dirname", ({ args, out }) => {
    const p = (args[0] ?? "").replace(/\/+$/, "");
    const i = p.lastIndexOf("/");
    out(`${i < 0 ? "." : i === 0 ? "/" : p.slice(0, i)}\n`);
    return 0;
  });
  r.set("toybox", (ctx) => {
    const [applet, ...rest] = ctx.args;
    if (!applet) {
      ctx.out(TOYBOX_APPLETS.filter((a) => r.has(a)).join(" ") + "\n");
      return 0;
    }
    if (applet === "--version") {
      ctx.out(`toybox ${TOYBOX_VERSION}\n`);
      return 0;
    }
    const impl = r.get(applet);
    if (!impl || !TOYBOX_APPLETS.includes(applet)) {
      ctx.err(`toybox: Unknown command ${applet}\n`);
      return 1;
    }
    return impl({ ...ctx, argv: [applet, ...rest], args: rest });
  });
}
