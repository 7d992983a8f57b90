// Maps ADB service strings (shell:, shell,v2,…:, exec:, sync:, abb_exec:, reboot:…) to their implementations.
import type { ServiceHandler, ServiceRouter } from "./daemon.ts";
import type { DeviceStream } from "./stream.ts";
import { encodeShellPacket, parseShellService, ShellPacketId, ShellPacketParser } from "./shell-v2.ts";
import { runSyncService } from "./sync.ts";
import { Shell } from "../shell/interpreter.ts";
import { firstCommand, isIncomplete } from "../shell/syntax.ts";
import { framebufferV2 } from "../render/raw.ts";
import type { CommandRegistry, ShellHost } from "../shell/types.ts";

export interface ServiceContext {
  host: ShellHost;
  commands: CommandRegistry;
  /** Returns the pending injected "close" fault and clears it. */
  takeCloseFault(): boolean;
}

const PROMPT = "vphone:/ $ ";

/** adbd's refusal of a host service: FAIL, the message length as 4 hex digits, the message. */
export function adbFail(message: string): Buffer {
  const body = Buffer.from(message, "utf8");
  return Buffer.concat([Buffer.from(`FAIL${body.length.toString(16).padStart(4, "0")}`), body]);
}

export function createServiceRouter(ctx: ServiceContext): ServiceRouter {
  return (service: string): ServiceHandler | null => {
    const shellSvc = parseShellService(service);
    if (shellSvc) {
      return async (stream) => {
        if (ctx.takeCloseFault()) return; // injected fault: the stream closes with no output
        if (shellSvc.command === "" && !shellSvc.exec) return interactive(stream, ctx, shellSvc.v2);
        if (shellSvc.v2) return shellV2(stream, ctx, shellSvc.command, shellSvc.pty);
        return shellRaw(stream, ctx, shellSvc.command, shellSvc.pty);
      };
    }
    if (service === "sync:") return (stream) => runSyncService(stream, ctx.host.fs);
    if (service.startsWith("abb_exec:") || service.startsWith("abb:")) {
      const args = service.slice(service.indexOf(":") + 1).split("\0");
      const line = ["cmd", ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
      return (stream) => (service.startsWith("abb_exec:") ? shellRaw(stream, ctx, line, false) : shellV2(stream, ctx, line, false));
    }
    if (service === "framebuffer:") return (stream) => stream.write(framebufferV2(ctx.host.phone));
    if (service.startsWith("reboot:"))
      return async (stream) => {
        await ctx.host.reboot?.(service.slice("reboot:".length));
        // adbd never answers: `adb reboot` returns when the connection drops, so `adb wait-for-device` right after waits for the new boot
        await new Promise<void>((resolve) => stream.onClose(resolve));
      };
    if (service === "root:") return (stream) => stream.write(Buffer.from("adbd cannot run as root in production builds\n"));
    if (service === "unroot:") return (stream) => stream.write(Buffer.from("adbd not running as root\n"));
    if (service === "remount:") return (stream) => stream.write(Buffer.from("Not running as root. Try \"adb root\" first.\n"));
    if (service.startsWith("tcpip:")) return (stream) => stream.write(Buffer.from(`restarting in TCP mode port: ${service.slice(6)}\n`));
    if (service === "usb:") return (stream) => stream.write(Buffer.from("restarting in USB mode\n"));
    if (service.startsWith("reverse:")) return (stream) => stream.write(adbFail("reverse is not supported on this virtual phone: nothing on it connects out; use adb forward instead"));
    return null;
  };
}

/** `adb install` streams the APK to `cmd package install -S <size>` and waits for the answer without closing: read exactly that much. */
export function installSize(command: string): number | null {
  const first = firstCommand(command);
  if (!first) return null;
  const [name, ...args] = first.argv;
  const install = (name === "cmd" && args[0] === "package" && args[1] === "install") || (name === "pm" && args[0] === "install");
  const i = args.indexOf("-S");
  return install && i >= 0 && /^\d+$/.test(args[i + 1] ?? "") ? Number(args[i + 1]) : null;
}

/** True when the first command reads its standard input (e.g. `cat > /sdcard/f`), so it must wait for stdin to close. */
export function readsStdin(command: string): boolean {
  const first = firstCommand(command);
  if (!first || first.stdinRedirected) return false;
  const [name, ...args] = first.argv;
  if (name === "sh" || name === "/system/bin/sh") return args.length === 0 || args.every((a) => a.startsWith("-") && a !== "-c");
  if (installSize(command) !== null) return true;
  return ["cat", "grep", "head", "tail", "wc", "md5sum", "sha1sum", "sha256sum", "base64", "tee"].includes(name ?? "") && args.filter((a) => !a.startsWith("-")).length <= (name === "grep" ? 1 : name === "tee" ? 1 : 0);
}

/** A shell for one stream; its commands stop when the client closes the stream (Ctrl-C on `adb logcat`). */
function makeShell(ctx: ServiceContext, stream: DeviceStream): Shell {
  const shell = new Shell(ctx.host, ctx.commands);
  const abort = new AbortController();
  stream.onClose(() => abort.abort());
  shell.signal = abort.signal;
  return shell;
}

const toPty = (b: Buffer) => Buffer.from(b.toString("utf8").replace(/\r?\n/g, "\r\n"), "utf8");

/** Buffers output and writes it in order; stdout and stderr keep their relative order. */
function orderedWriter(write: (b: Buffer) => Promise<void>) {
  let chain = Promise.resolve();
  return {
    push(b: Buffer) {
      if (b.length === 0) return;
      chain = chain.then(() => write(b));
    },
    flush: () => chain,
  };
}

async function shellRaw(stream: DeviceStream, ctx: ServiceContext, command: string, pty: boolean): Promise<void> {
  const w = orderedWriter((b) => stream.write(pty ? toPty(b) : b));
  // `adb exec-in cat > f` streams stdin until the client closes its side
  const size = installSize(command);
  const stdin = pty || !readsStdin(command) ? Buffer.alloc(0) : size !== null ? await stream.input.readExactly(size) : await stream.input.readAll();
  await makeShell(ctx, stream).run(command, { out: (d) => w.push(d), err: (d) => w.push(d) }, stdin);
  await w.flush();
}

async function shellV2(stream: DeviceStream, ctx: ServiceContext, command: string, pty: boolean): Promise<void> {
  const stdinParts: Buffer[] = [];
  const size = installSize(command);
  const parser = new ShellPacketParser();
  let stdinClosed!: () => void;
  const stdinDone = new Promise<void>((r) => (stdinClosed = r));
  // collect stdin in the background; only a command that reads stdin waits for the client to close it
  void (async () => {
    for (;;) {
      const b = await stream.input.read();
      if (!b) return stdinClosed();
      for (const p of parser.push(b)) {
        if (p.id === ShellPacketId.STDIN) stdinParts.push(p.data);
        if (p.id === ShellPacketId.CLOSE_STDIN || (size !== null && stdinParts.reduce((n, x) => n + x.length, 0) >= size)) stdinClosed();
      }
    }
  })();
  if (readsStdin(command)) await stdinDone;
  const w = orderedWriter((b) => stream.write(b));
  const code = await makeShell(ctx, stream).run(
    command,
    {
      out: (d) => w.push(encodeShellPacket(ShellPacketId.STDOUT, pty ? toPty(d) : d)),
      err: (d) => w.push(encodeShellPacket(pty ? ShellPacketId.STDOUT : ShellPacketId.STDERR, pty ? toPty(d) : d)),
    },
    Buffer.concat(stdinParts),
  );
  w.push(encodeShellPacket(ShellPacketId.EXIT, Buffer.from([code & 0xff])));
  await w.flush();
}

/** `adb shell` with no command: a prompt, line editing left to the client's terminal. */
async function interactive(stream: DeviceStream, ctx: ServiceContext, v2: boolean): Promise<void> {
  const shell = makeShell(ctx, stream);
  const parser = new ShellPacketParser();
  const send = (b: Buffer) => stream.write(v2 ? encodeShellPacket(ShellPacketId.STDOUT, b) : b);
  await send(Buffer.from(PROMPT));
  let line = "";
  let pending = "";
  for (;;) {
    const chunk = await stream.input.read();
    if (!chunk) return;
    const data = v2 ? Buffer.concat(parser.push(chunk).filter((p) => p.id === ShellPacketId.STDIN).map((p) => p.data)) : chunk;
    for (const ch of data.toString("utf8")) {
      if (ch === "\r" || ch === "\n") {
        await send(Buffer.from("\r\n"));
        // an open `if`, loop or quote continues on the next line, as mksh's PS2 prompt does
        if (isIncomplete(pending + line)) {
          pending += line + "\n";
          line = "";
          await send(Buffer.from("> "));
          continue;
        }
        const cmd = (pending + line).trim();
        pending = "";
        line = "";
        if (cmd === "exit") {
          if (v2) await stream.write(encodeShellPacket(ShellPacketId.EXIT, Buffer.from([0])));
          return;
        }
        if (cmd) {
          const w = orderedWriter((b) => send(toPty(b)));
          await shell.run(cmd, { out: (d) => w.push(d), err: (d) => w.push(d) });
          await w.flush();
        }
        await send(Buffer.from(PROMPT));
      } else if (ch === "\x7f" || ch === "\b") {
        if (line.length) {
          line = line.slice(0, -1);
          await send(Buffer.from("\b \b"));
        }
      } else if (ch === "\x03") {
        line = "";
        pending = "";
        await send(Buffer.from("^C\r\n" + PROMPT));
      } else if (ch === "\x04") {
        if (v2) await stream.write(encodeShellPacket(ShellPacketId.EXIT, Buffer.from([0])));
        return;
      } else {
        line += ch;
        await send(Buffer.from(ch)); // the pty echoes what is typed
      }
    }
  }
}
