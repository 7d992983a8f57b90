// Argument parsing for `npm run agent -- --goal "<text>" --device <spec> …` (pure, tested).
export type DeviceSpec = { kind: "tcp"; host: string; port: number } | { kind: "ws"; url: string } | { kind: "adb-server"; serial?: string; host?: string; port?: number };

export interface CliArgs {
  goal?: string;
  device: DeviceSpec;
  baseURL?: string;
  apiKey?: string;
  plannerModel?: string;
  executorModel?: string;
  summarizerModel?: string;
  plannerBaseURL?: string;
  executorBaseURL?: string;
  runId?: string;
  goalId?: string;
  maxSteps?: number;
  allow: string[];
  json: boolean;
  help: boolean;
}

export class CliError extends Error {
  readonly code = "bad_arguments";
}

export const USAGE = `Usage: npm run agent -- --goal "<text>" --device <tcp:host:port | ws:url | adb-server[:serial]>
  [--base-url <OpenAI-compatible URL>] [--api-key <key>]   (default: $OPENAI_BASE_URL / $OPENAI_API_KEY)
  [--planner-model <name>] [--executor-model <name>] [--summarizer-model <name>]
  [--planner-base-url <url>] [--executor-base-url <url>]
  [--run <runId>]            resume a run from its last checkpoint
  [--goal-id <id>]           work on an existing objective instead of creating one from --goal
  [--max-steps <n>]          per-run iteration cap (default 200)
  [--allow <kind,...>]       confirm-tier kinds allowed from the start (e.g. input_text); never high-risk ones
  [--json]                   print the final report as JSON`;

export function parseDeviceSpec(s: string): DeviceSpec {
  if (s.startsWith("tcp:")) {
    const rest = s.slice(4);
    const i = rest.lastIndexOf(":");
    const host = i > 0 ? rest.slice(0, i) : "127.0.0.1";
    const port = Number(i > 0 ? rest.slice(i + 1) : rest);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new CliError(`--device ${s}: the port must be a number, e.g. tcp:127.0.0.1:5555`);
    return { kind: "tcp", host, port };
  }
  if (s.startsWith("ws:") || s.startsWith("wss:")) {
    const url = s.startsWith("ws:ws://") || s.startsWith("ws:wss://") ? s.slice(3) : s;
    try {
      new URL(url);
    } catch {
      throw new CliError(`--device ${s}: not a WebSocket URL, e.g. ws:ws://127.0.0.1:8080/`);
    }
    return { kind: "ws", url };
  }
  if (s === "adb-server" || s.startsWith("adb-server:")) {
    const serial = s.slice("adb-server:".length);
    return serial ? { kind: "adb-server", serial } : { kind: "adb-server" };
  }
  throw new CliError(`--device ${s}: use tcp:host:port, ws:url or adb-server[:serial]`);
}

export function parseCliArgs(argv: string[], env: Record<string, string | undefined> = {}): CliArgs {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) throw new CliError(`Unexpected argument "${a}".\n${USAGE}`);
    const [k, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (inline !== undefined) flags.set(k, inline);
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) flags.set(k, argv[++i]!);
    else flags.set(k, true);
  }
  const str = (k: string): string | undefined => {
    const v = flags.get(k);
    if (v === true) throw new CliError(`--${k} needs a value.`);
    return v;
  };
  const help = flags.has("help") || flags.has("h");
  const deviceArg = str("device");
  if (!help && !deviceArg) throw new CliError(`--device is required.\n${USAGE}`);
  const goal = str("goal");
  const runId = str("run");
  const goalId = str("goal-id");
  if (!help && !goal && !runId && !goalId) throw new CliError(`--goal is required (or --run / --goal-id to resume).\n${USAGE}`);
  const maxSteps = str("max-steps");
  if (maxSteps !== undefined && !(Number(maxSteps) > 0)) throw new CliError(`--max-steps must be a positive number.`);
  const known = new Set(["goal", "device", "base-url", "api-key", "planner-model", "executor-model", "summarizer-model", "planner-base-url", "executor-base-url", "run", "goal-id", "max-steps", "allow", "json", "help", "h"]);
  for (const k of flags.keys()) if (!known.has(k)) throw new CliError(`Unknown option --${k}.\n${USAGE}`);
  const baseURL = str("base-url") ?? env.OPENAI_BASE_URL;
  const apiKey = str("api-key") ?? env.OPENAI_API_KEY;
  return {
    ...(goal ? { goal } : {}),
    device: deviceArg ? parseDeviceSpec(deviceArg) : { kind: "adb-server" },
    ...(baseURL ? { baseURL } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(str("planner-model") ? { plannerModel: str("planner-model")! } : {}),
    ...(str("executor-model") ? { executorModel: str("executor-model")! } : {}),
    ...(str("summarizer-model") ? { summarizerModel: str("summarizer-model")! } : {}),
    ...(str("planner-base-url") ? { plannerBaseURL: str("planner-base-url")! } : {}),
    ...(str("executor-base-url") ? { executorBaseURL: str("executor-base-url")! } : {}),
    ...(runId ? { runId } : {}),
    ...(goalId ? { goalId } : {}),
    ...(maxSteps ? { maxSteps: Number(maxSteps) } : {}),
    allow: (str("allow") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    json: flags.get("json") === true,
    help,
  };
}
