// `input` — taps, swipes, text and key events, with Android's usage and error texts.
import type { CommandContext, CommandRegistry } from "../types.ts";
import { parseKeycode } from "./keycodes.ts";

const USAGE = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      touchscreen
      keyboard
      mouse

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
`;

const SOURCES = new Set(["touchscreen", "keyboard", "mouse", "trackball", "stylus", "dpad", "gamepad", "touchpad", "joystick", "touchnavigation", "keyboard"]);

function nums(ctx: CommandContext, args: string[], n: number, cmd: string): number[] | null {
  const v = args.slice(0, n).map(Number);
  if (args.length < n || v.some((x) => !Number.isFinite(x))) {
    ctx.err(`Error: Invalid arguments for command: ${cmd}\n${USAGE}`);
    return null;
  }
  return v;
}

const input = async (ctx: CommandContext) => {
  let args = [...ctx.args];
  if (args[0] && SOURCES.has(args[0])) args = args.slice(1);
  if (args[0] === "-d") args = args.slice(2);
  const cmd = args.shift();
  const phone = ctx.host.phone;
  switch (cmd) {
    case "tap": {
      const v = nums(ctx, args, 2, "tap");
      if (!v) return 1;
      phone.tap(v[0]!, v[1]!);
      return 0;
    }
    case "swipe":
    case "draganddrop": {
      const v = nums(ctx, args, 4, cmd);
      if (!v) return 1;
      const ms = args[4] !== undefined ? Number(args[4]) : 300;
      phone.swipe(v[0]!, v[1]!, v[2]!, v[3]!, ms);
      // the gesture takes its duration on a phone too
      await new Promise((r) => setTimeout(r, Math.min(Math.max(ms, 0), 5000)));
      return 0;
    }
    case "text": {
      if (args.length === 0) {
        ctx.err(`Error: Invalid arguments for command: text\n${USAGE}`);
        return 1;
      }
      const text = args.join(" ").replace(/%s/g, " ");
      // Android's `input text` maps characters through the virtual key map; anything it cannot map crashes it.
      const bad = [...text].find((c) => c.charCodeAt(0) > 126 || (c.charCodeAt(0) < 32 && c !== "\n" && c !== "\t"));
      if (bad) {
        ctx.err(
          "Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:298)\n\tat com.android.server.input.InputShellCommand.runText(InputShellCommand.java:273)\n\tat com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:142)\n",
        );
        return 255;
      }
      phone.typeText(text);
      return 0;
    }
    case "keyevent": {
      const flags = args.filter((a) => a.startsWith("--"));
      const keys = args.filter((a) => !a.startsWith("--"));
      if (keys.length === 0) {
        ctx.err(`Error: Invalid arguments for command: keyevent\n${USAGE}`);
        return 1;
      }
      for (const k of keys) {
        const code = parseKeycode(k);
        if (code === null) {
          ctx.err(`Error: Unknown keycode: ${k}\n`);
          return 1;
        }
        phone.key(code);
        if (flags.includes("--doubletap")) phone.key(code);
      }
      return 0;
    }
    case "press":
      phone.key(23);
      return 0;
    case "roll":
      return 0;
    case undefined:
      ctx.err(USAGE);
      return 1;
    default:
      ctx.err(`Error: Unknown command: ${cmd}\n${USAGE}`);
      return 1;
  }
};

export function registerInput(r: CommandRegistry): void {
  r.set("input", input);
}
