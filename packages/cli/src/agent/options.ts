// The headless agent's command line: flags (through the CLI's one parser) and the environment → what to run.
import { readFileSync } from "node:fs";
import { readAdapterSetting, type ModelsInit } from "@phoneloop/agent";
import { AGENT_TOKEN_FILE_OPTION, NO_AGENT_TOKEN, readAgentToken } from "../agent-token.ts";
import { Args, UsageError, type Options } from "../args.ts";
import type { Env } from "../env.ts";
import { parseDeviceSpec, type DeviceSpec } from "./device.ts";

export const AGENT_OPTIONS = {
  goal: { type: "string" },
  "goal-id": { type: "string" },
  "run-id": { type: "string" },
  "phone-control": { type: "string" },
  "agent-id": { type: "string" },
  ...AGENT_TOKEN_FILE_OPTION,
  device: { type: "string" },
  "api-url": { type: "string" },
  "base-url": { type: "string" },
  "api-key-file": { type: "string" },
  "planner-model": { type: "string" },
  "executor-model": { type: "string" },
  "summarizer-model": { type: "string" },
  "planner-base-url": { type: "string" },
  "executor-base-url": { type: "string" },
  "planner-timeout-ms": { type: "string" },
  "executor-timeout-ms": { type: "string" },
  "summarizer-timeout-ms": { type: "string" },
  "planner-retries": { type: "string" },
  "executor-retries": { type: "string" },
  "executor-adapter": { type: "string" },
  "summarizer-retries": { type: "string" },
  "max-steps": { type: "string" },
  "lease-ttl-ms": { type: "string" },
  "api-timeout-ms": { type: "string" },
  allow: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

/** The longest model call a flag may allow, and the most retries: beyond them a run looks hung. */
export const MAX_MODEL_TIMEOUT_MS = 600_000;
export const MAX_MODEL_RETRIES = 20;
/** The longest lease the state core grants. */
export const MAX_LEASE_TTL_MS = 24 * 60 * 60 * 1000;

export const AGENT_USAGE = `Usage: npm run agent -- --goal "<text>" --device <tcp:host:port | ws:url | adb-server[:serial]> [options]
  --goal <text>              the goal to create and work on
  --goal-id <id>             work on an existing goal instead
  --run-id <id>              resume this run from its last checkpoint (on this or another machine); the same
                             --agent-id takes its own lease over at once, another worker waits for the lease;
                             a run stopped for a cause that can go away (its quota, a pause, a gate, a lost
                             phone: with that same phone) resumes once the cause is gone
  --phone-control <url>      a virtual phone's control API (token in PHONE_CONTROL_TOKEN): its task's score becomes evidence
  --device <spec>            the phone: tcp:host:port, ws:url or adb-server[:serial]
  --agent-id <id>            register under this agent id, so a restarted worker keeps its identity (or PHONELOOP_AGENT_ID)
  --agent-token-file <path>  read the agent token from this file (default: PHONELOOP_AGENT_TOKEN); never a flag value
  --api-url <url>            the PhoneLoop API (or PHONELOOP_API_URL; default http://127.0.0.1:4000)
  --base-url <url>           an OpenAI-compatible endpoint for every role (or OPENAI_BASE_URL)
  --api-key-file <path>      read the model key from this file (default: OPENAI_API_KEY); never pass a key as a flag
  --planner-model <name>     (default gpt-4o-mini)  --executor-model <name> (default gpt-4o)
  --summarizer-model <name>  (default: the planner's)
  --planner-base-url <url>   --executor-base-url <url>   per-role endpoints
  --<role>-timeout-ms <ms>   one model call's timeout for planner, executor or summarizer (or MODEL_TIMEOUT_MS for
                             every role; default 60000); a timeout is retried like a 5xx
  --executor-adapter <id>[@<version>]  the language the executor's model speaks: phoneloop (default), ui-tars,
                             qwen-vl, autoglm-phone, gui-owl or tool-calls, e.g. ui-tars@1.5 (default: its newest version)
  --<role>-retries <n>       retries after a 5xx, 429 or timeout for that role (or MODEL_RETRIES; default 4);
                             the role's circuit breaker rests the endpoint after 5 failures in a row
  --max-steps <n>            per-run step cap (default 200)
  --lease-ttl-ms <ms>        how long a claimed todo stays this worker's without a renewal (default 120000)
  --api-timeout-ms <ms>      an API request without an answer after this long is abandoned and retried (default
                             30000); if the API or its database stays away, the run is suspended and resumes after
  --allow <kind,...>         confirm-tier kinds allowed from the start (e.g. input_text); never high-risk ones
  --json                     print the final report as JSON`;

export interface AgentArgs {
  goal?: string;
  goalId?: string;
  runId?: string;
  phoneControl?: { url: string; token: string };
  agentId?: string;
  /** What the agent acts with (PHONELOOP_AGENT_TOKEN or --agent-token-file). */
  agentToken: string;
  device: DeviceSpec;
  apiUrl: string;
  models: ModelsInit;
  maxSteps?: number;
  leaseTtlMs?: number;
  apiTimeoutMs?: number;
  allow: string[];
  json: boolean;
}

/** `--help` gives null; a usage error throws UsageError naming what to pass. */
export function parseAgentArgs(argv: string[], env: Env, readFile: (path: string) => string = (p) => readFileSync(p, "utf8")): AgentArgs | null {
  const a = Args.parse(argv, AGENT_OPTIONS);
  if (a.flag("help")) return null;
  const device = a.string("device");
  if (!device) throw new UsageError("--device is required: tcp:host:port, ws:url or adb-server[:serial].");
  const goal = a.string("goal");
  const goalId = a.string("goal-id");
  const runId = a.string("run-id");
  const phoneControlUrl = a.string("phone-control");
  if (phoneControlUrl && !env.PHONE_CONTROL_TOKEN) throw new UsageError("--phone-control needs the phone's control token in PHONE_CONTROL_TOKEN (the virtual phone prints it at start).");
  if (!goal && !goalId && !runId) throw new UsageError("--goal is required (or --goal-id to work on an existing goal, --run-id to resume a run).");
  const maxSteps = a.int("max-steps");
  const agentToken = readAgentToken(a, env, readFile);
  if (!agentToken) throw new UsageError(NO_AGENT_TOKEN);
  if (maxSteps === 0) throw new UsageError("--max-steps must be at least 1.");
  const leaseTtlMs = a.durationMs("lease-ttl-ms");
  if (leaseTtlMs !== undefined && (leaseTtlMs < 1000 || leaseTtlMs > MAX_LEASE_TTL_MS)) throw new UsageError(`--lease-ttl-ms must be from 1000 to ${MAX_LEASE_TTL_MS} (a day).`);
  const apiTimeoutMs = a.durationMs("api-timeout-ms");
  if (apiTimeoutMs !== undefined && (apiTimeoutMs < 100 || apiTimeoutMs > MAX_MODEL_TIMEOUT_MS)) throw new UsageError(`--api-timeout-ms must be from 100 to ${MAX_MODEL_TIMEOUT_MS} (10 minutes).`);

  const keyFile = a.string("api-key-file");
  let apiKey = env.OPENAI_API_KEY;
  if (keyFile) {
    try {
      apiKey = readFile(keyFile).trim();
    } catch (e) {
      throw new UsageError(`--api-key-file ${keyFile}: cannot read it (${(e as Error).message}).`);
    }
    if (!apiKey) throw new UsageError(`--api-key-file ${keyFile} is empty; put the model key in it.`);
  }
  const baseURL = a.string("base-url") ?? env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
  const role = (name: "planner" | "executor" | "summarizer", model: string, url?: string) => {
    const timeoutMs = a.durationMs(`${name}-timeout-ms`) ?? env.MODEL_TIMEOUT_MS;
    const retries = a.int(`${name}-retries`) ?? env.MODEL_RETRIES;
    if (timeoutMs !== undefined && (timeoutMs < 1 || timeoutMs > MAX_MODEL_TIMEOUT_MS)) throw new UsageError(`--${name}-timeout-ms must be from 1 to ${MAX_MODEL_TIMEOUT_MS} (10 minutes).`);
    if (retries !== undefined && retries > MAX_MODEL_RETRIES) throw new UsageError(`--${name}-retries must be from 0 to ${MAX_MODEL_RETRIES}.`);
    return { baseURL: url ?? baseURL, model, ...(apiKey ? { apiKey } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(retries !== undefined ? { retries } : {}) };
  };
  const adapterText = a.string("executor-adapter");
  const adapter = adapterText === undefined ? undefined : readAdapterSetting(adapterText);
  if (adapter && !adapter.ok) throw new UsageError(`--executor-adapter ${adapterText}: ${adapter.message}.`);
  const plannerModel = a.string("planner-model") ?? "gpt-4o-mini";
  const agentId = a.string("agent-id") ?? env.PHONELOOP_AGENT_ID;
  return {
    ...(goal ? { goal } : {}),
    ...(goalId ? { goalId } : {}),
    ...(runId ? { runId } : {}),
    ...(agentId ? { agentId } : {}),
    agentToken,
    device: parseDeviceSpec(device),
    apiUrl: a.string("api-url") ?? env.PHONELOOP_API_URL,
    models: {
      executor: { ...role("executor", a.string("executor-model") ?? "gpt-4o", a.string("executor-base-url")), ...(adapter?.ok ? { adapter: adapter.setting } : {}) },
      planner: role("planner", plannerModel, a.string("planner-base-url")),
      summarizer: role("summarizer", a.string("summarizer-model") ?? plannerModel, a.string("planner-base-url")),
    },
    ...(maxSteps ? { maxSteps } : {}),
    ...(leaseTtlMs !== undefined ? { leaseTtlMs } : {}),
    ...(apiTimeoutMs !== undefined ? { apiTimeoutMs } : {}),
    allow: a.list("allow"),
    json: a.flag("json"),
    ...(phoneControlUrl && env.PHONE_CONTROL_TOKEN ? { phoneControl: { url: phoneControlUrl, token: env.PHONE_CONTROL_TOKEN } } : {}),
  };
}
