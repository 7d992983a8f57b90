// `phoneloop <command>` as a function: parses argv, runs one command through the API (packages/client), prints
// the result. Exit codes: 0 ok, 1 the operator refused (or the API could not be reached), 2 usage error.
import { createApiClient, toControlPlaneError, type ApiClient } from "@phoneloop/client";
import { AGENT_TOKEN_FILE_OPTION, readAgentToken } from "./agent-token.ts";
import { Args, UsageError, type Options } from "./args.ts";
import { COMMANDS, type Command } from "./commands.ts";
import type { Env } from "./env.ts";
import { toJson } from "./format.ts";

export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

export interface RunIo {
  env: Env;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const GLOBAL_OPTIONS = {
  json: { type: "boolean" },
  "agent-id": { type: "string" },
  ...AGENT_TOKEN_FILE_OPTION,
  "api-url": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

export async function run(argv: string[], io: RunIo): Promise<number> {
  const words = argv.filter((a) => !a.startsWith("-"));
  const command = COMMANDS.find((c) => c.path.every((w, i) => words[i] === w));
  if (!command) {
    const wantsHelp = argv.length === 0 || argv.includes("--help") || argv.includes("-h") || words[0] === "help";
    if (!wantsHelp) io.stderr(`Unknown command: ${words.join(" ") || argv.join(" ")}\n\n`);
    (wantsHelp ? io.stdout : io.stderr)(usage(io.env.PHONELOOP_API_URL));
    return wantsHelp ? EXIT.ok : EXIT.usage;
  }

  let args: Args;
  let positionals: string[];
  try {
    args = Args.parse(argv, { ...GLOBAL_OPTIONS, ...command.options }, { positionals: true });
    positionals = args.positionals.slice(command.path.length);
    if (positionals.length > (command.args?.length ?? 0)) throw new UsageError(`Unexpected argument: ${positionals.slice(command.args?.length ?? 0).join(" ")}`);
  } catch (e) {
    return usageFailure(io, e as UsageError, command);
  }
  if (args.flag("help")) {
    io.stdout(commandUsage(command));
    return EXIT.ok;
  }
  const who: Who = { agentId: args.string("agent-id") ?? io.env.PHONELOOP_AGENT_ID };
  const apiUrl = args.string("api-url") ?? io.env.PHONELOOP_API_URL;
  const json = args.flag("json");

  try {
    const token = readAgentToken(args, io.env);
    const client: ApiClient = createApiClient({ apiUrl, auth: token ? { kind: "token", token } : { kind: "none" } });
    const result = await command.run({ client, args: new CommandArgs(command, args, positionals, who) });
    io.stdout(json ? `${toJson(result.json)}\n` : `${result.text.trimEnd()}\n`);
    return result.exitCode ?? EXIT.ok;
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(io, e, command);
    const error = toControlPlaneError(e, apiUrl);
    const code = (error as { code?: string }).code ?? "ERROR";
    if (json) io.stdout(`${toJson({ ok: false, error: { code, message: error.message } })}\n`);
    io.stderr(`phoneloop: ${error.message}\n`);
    return EXIT.refused;
  }
}

function usageFailure(io: RunIo, e: UsageError, command: Command): number {
  io.stderr(`${e.message}\n\n${commandUsage(command)}`);
  return EXIT.usage;
}

/** The agent id the `todo` and `quota` commands name (the API checks it is the token's own agent). */
interface Who {
  agentId?: string | undefined;
}

/** A command's flags and positionals, and who calls; a missing one is a usage error naming the fix. */
export class CommandArgs {
  constructor(
    private readonly command: Command,
    readonly flags: Args,
    private readonly positionals: string[],
    private readonly who: Who,
  ) {}

  /** The positional `name` (declared in the command's `args`). */
  arg(name: string): string {
    const value = this.optionalArg(name);
    if (!value) throw new UsageError(`Missing <${name}>.`);
    return value;
  }

  optionalArg(name: string): string | undefined {
    const index = this.command.args?.indexOf(name) ?? -1;
    return index >= 0 ? this.positionals[index] : undefined;
  }

  agentId(): string {
    if (!this.who.agentId) throw new UsageError("This command acts as an agent: pass --agent-id <agent id> (or set PHONELOOP_AGENT_ID).");
    return this.who.agentId;
  }
}

export function usage(apiUrl: string): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const lines = COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return [
    "Usage: phoneloop <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Options for every command:",
    "  --json              machine-readable output",
    "  --agent-id <id>     act as this agent (or PHONELOOP_AGENT_ID)",
    "  --member-id <id>    act as this team member (or PHONELOOP_MEMBER)",
    `  --api-url <url>     the API (or PHONELOOP_API_URL; now ${apiUrl})`,
    "",
    "The headless agent is `npm run agent -- --help`.",
    "Exit codes: 0 ok, 1 the operator refused or the API is unreachable, 2 usage error.",
    "",
  ].join("\n");
}

export function commandUsage(c: Command): string {
  return [`Usage: phoneloop ${c.usage}`, "", c.summary, ...(c.help ? ["", c.help] : []), "", "Add --json for machine-readable output.", ""].join("\n");
}
