// screencap and uiautomator dump.
import type { CommandContext, CommandRegistry } from "../types.ts";

const screencap = async (ctx: CommandContext) => {
  const args: string[] = [];
  for (let i = 0; i < ctx.args.length; i++) {
    if (ctx.args[i] === "-d") i++; // -d <display-id>: the phone has one display, whichever id is asked for
    else args.push(ctx.args[i]!);
  }
  const file = args.find((a) => !a.startsWith("-"));
  const png = args.includes("-p") || (file?.endsWith(".png") ?? false);
  const phone = ctx.host.phone;
  let data: Buffer;
  if (png) data = await phone.screenshot();
  else {
    // raw: width, height, format (1 = RGBA_8888), then pixels — screencap without -p
    const { decodeRawScreen } = await import("../../render/raw.ts");
    data = await decodeRawScreen(phone);
  }
  if (file) ctx.host.fs.writeFile(ctx.host.fs.normalize(file, ctx.shell.cwd), data);
  else ctx.out(data);
  return 0;
};

const uiautomator = async (ctx: CommandContext) => {
  const [sub, ...rest] = ctx.args;
  if (sub !== "dump") {
    ctx.err(`Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n    runtest <class spec> [options]\n\ndump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n      [--compressed]: dumps compressed layout information.\n      [file]: the location where the dumped XML should be stored, default is\n      /sdcard/window_dump.xml\n\nevents: prints out accessibility events until terminated\n`);
    return sub ? 1 : 0;
  }
  const target = rest.find((a) => !a.startsWith("--")) ?? "/sdcard/window_dump.xml";
  const xml = ctx.host.phone.uiDump();
  if (target === "/dev/tty" || target === "/dev/stdout") {
    // Android writes the XML to the terminal, then its message — spelling included — right after it.
    ctx.out(xml);
  } else {
    ctx.host.fs.writeFile(ctx.host.fs.normalize(target, ctx.shell.cwd), Buffer.from(xml, "utf8"));
  }
  ctx.out(`UI hierchary dumped to: ${target}\n`);
  return 0;
};

export function registerScreen(r: CommandRegistry): void {
  r.set("screencap", screencap);
  r.set("uiautomator", uiautomator);
}
