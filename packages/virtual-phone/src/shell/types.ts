// What a shell command sees: its arguments, stdin, output sinks and the device it runs on.
import type { VirtualFs } from "../device/filesystem.ts";
import type { Shell } from "./interpreter.ts";
import type { PhoneEngine } from "../engine.ts";

export interface ShellHost {
  fs: VirtualFs;
  phone: PhoneEngine;
  /** Applies injected faults (slow / fail next) before each command. */
  beforeCommand?(argv: string[]): Promise<void>;
  /** Takes the phone offline and boots it again (`reboot`, `svc power reboot`); resolves once it is going down. */
  reboot?(reason: string): Promise<void>;
}

export interface CommandContext {
  argv: string[];
  args: string[];
  stdin: Buffer;
  out(data: string | Buffer): void;
  err(data: string | Buffer): void;
  host: ShellHost;
  shell: Shell;
  /** Exported variables plus the command's own assignments (`ANDROID_LOG_TAGS= logcat`). */
  env: Record<string, string>;
  /** Aborted when the client closes the stream: long-running commands (logcat, sleep) stop. */
  signal: AbortSignal;
}

export type ShellCommand = (ctx: CommandContext) => number | Promise<number>;
export type CommandRegistry = Map<string, ShellCommand>;
