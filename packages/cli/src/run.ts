// Parses argv, runs one command through the API, prints the result. Exit codes: 0 ok, 1 the operator refused
// (or the API could not be reached), 2 usage error.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { TRPCClientError } from "@trpc/client";
import { createCliClient, type Caller, type CliClient } from "./client.ts";
import { COMMANDS, type Command } from "./commands.ts";
import { toJson } from "./format.ts";

export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;
export const DEFAULT_API_URL = "http://127.0.0.1:4000";

export interface RunIo {
  apiUrl?: string | undefined;
  agent?: string | undefined;
  member?: string | undefined;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(message);
  }
}

const GLOBAL_OPTIONS = {
  json: { type: "boolean" },
  agent: { type: "string" },
  member: { type: "string" },
  "api-url": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

export async function run(argv: string[], io: RunIo): Promise<number> {
  const words = argv.filter((a) => !a.startsWith("-"));
  const command = findCommand(words);
  if (!command) {
    const wantsHelp = argv.length === 0 || argv.includes("--help") || argv.includes("-h") || words[0] === "help";
    if (!wantsHelp) io.stderr(`Unknown command: ${words.join(" ") || argv.join(" ")}\n\n`);
    (wantsHelp ? io.stdout : io.stderr)(usage());
    return wantsHelp ? EXIT.ok : EXIT.usage;
  }

  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (e) {
    return usageFailure(io, new UsageError((e as Error).message, command));
  }
  if (parsed.values.help) {
    io.stdout(commandUsage(command));
    return EXIT.ok;
  }
  const positionals = parsed.positionals.slice(command.path.length);
  const who: Caller = {
    agent: str(parsed.values.agent) ?? io.agent,
    member: str(parsed.values.member) ?? io.member,
  };
  const apiUrl = str(parsed.values["api-url"]) ?? io.apiUrl ?? DEFAULT_API_URL;
  const json = parsed.values.json === true;

  try {
    const args = new Args(command, parsed.values, positionals, who);
    const client: CliClient = createCliClient(apiUrl, who);
    const result = await command.run({ client, args, who });
    io.stdout(json ? `${toJson(result.json)}\n` : `${result.text.trimEnd()}\n`);
    return result.exitCode ?? EXIT.ok;
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(io, e);
    return refused(io, e, apiUrl, json);
  }
}

function usageFailure(io: RunIo, e: UsageError): number {
  io.stderr(`${e.message}\n\n${e.command ? commandUsage(e.command) : usage()}`);
  return EXIT.usage;
}

function refused(io: RunIo, e: unknown, apiUrl: string, json: boolean): number {
  let code = "ERROR";
  let message: string;
  if (e instanceof TRPCClientError) {
    const data = e.data as { code?: string; issues?: { path: string; message: string }[] | null } | undefined;
    if (data?.code) {
      code = data.code;
      message = e.message;
    } else {
      code = "UNREACHABLE";
      message =
        `Cannot reach the PhoneLoop API at ${apiUrl} (${e.message}). ` +
        `Start it (DATABASE_URL=… npm run start --workspace @phoneloop/api, or npm start), ` +
        `or point PHONELOOP_API_URL / --api-url at a running one.`;
    }
  } else {
    message = e instanceof Error ? e.message : String(e);
  }
  if (json) io.stdout(`${toJson({ ok: false, error: { code, message } })}\n`);
  io.stderr(`phoneloop: ${message}\n`);
  return EXIT.refused;
}

function findCommand(words: string[]): Command | undefined {
  return COMMANDS.find((c) => c.path.every((w, i) => words[i] === w));
}

function str(v: string | boolean | undefined): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

/** Typed access to a command's flags and positionals; a missing or malformed one is a usage error. */
export class Args {
  constructor(
    private readonly command: Command,
    private readonly values: Record<string, string | boolean | undefined>,
    readonly positionals: string[],
    private readonly who: Caller,
  ) {
    const max = command.args?.length ?? 0;
    if (positionals.length > max) {
      throw new UsageError(`Unexpected argument: ${positionals.slice(max).join(" ")}`, command);
    }
  }

  /** The positional `name` (declared in the command's `args`). */
  arg(name: string): string {
    const index = this.command.args?.indexOf(name) ?? -1;
    const value = index >= 0 ? this.positionals[index] : undefined;
    if (!value) throw new UsageError(`Missing <${name}>.`, this.command);
    return value;
  }

  optionalArg(name: string): string | undefined {
    const index = this.command.args?.indexOf(name) ?? -1;
    return index >= 0 ? this.positionals[index] : undefined;
  }

  string(name: string): string | undefined {
    return str(this.values[name]);
  }

  requiredString(name: string): string {
    const v = this.string(name);
    if (!v) throw new UsageError(`Missing --${name}.`, this.command);
    return v;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  int(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}".`, this.command);
    return Number(v);
  }

  /** A duration like 90s, 5m, 1h or plain milliseconds. */
  durationMs(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const m = /^(\d+)(ms|s|m|h)?$/.exec(v);
    if (!m) throw new UsageError(`--${name} must be a duration like 90s, 5m or 1h, got "${v}".`, this.command);
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "ms") as "ms" | "s" | "m" | "h"];
    return Number(m[1]) * unit;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) {
      throw new UsageError(`--${name} must be one of ${allowed.join(", ")}; got "${v}".`, this.command);
    }
    return v as T;
  }

  usageError(message: string): UsageError {
    return new UsageError(message, this.command);
  }

  agent(): string {
    if (!this.who.agent) throw new UsageError("This command acts as an agent: pass --agent <agent id> (or set PHONELOOP_AGENT).", this.command);
    return this.who.agent;
  }

  member(): string {
    if (!this.who.member) throw new UsageError("This command acts as a team member: pass --member <member id> (or set PHONELOOP_MEMBER).", this.command);
    return this.who.member;
  }
}

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const lines = COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return [
    "Usage: phoneloop <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Options for every command:",
    "  --json             machine-readable output",
    "  --agent <id>       act as this agent (or PHONELOOP_AGENT)",
    "  --member <id>      act as this team member (or PHONELOOP_MEMBER)",
    `  --api-url <url>    the API (or PHONELOOP_API_URL; default ${DEFAULT_API_URL})`,
    "",
    "Exit codes: 0 ok, 1 the operator refused or the API is unreachable, 2 usage error.",
    "",
  ].join("\n");
}

export function commandUsage(c: Command): string {
  return [`Usage: phoneloop ${c.usage}`, "", c.summary, ...(c.help ? ["", c.help] : []), "", "Add --json for machine-readable output.", ""].join("\n");
}
