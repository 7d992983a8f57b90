// `npm run agent -- --goal "<text>" --device <tcp:host:port | ws:url | adb-server[:serial]> [--api-url …] …`:
// the headless worker. The agent package's entry parses its own flags, connects the phone, builds the role
// models and runs; this composition root gives it the real state core (the tRPC ControlPlane) and the API flags.
import { pathToFileURL } from "node:url";
import { agentCliMain, setControlPlaneFactory, USAGE } from "@phoneloop/agent/node";
import { DEFAULT_API_URL } from "../run.ts";
import { ApiUnreachable, ControlPlaneError, createTrpcControlPlane, networkReason } from "./trpc-control-plane.ts";

export const API_USAGE = `  [--api-url <url>]          the PhoneLoop API (default: $PHONELOOP_API_URL or ${DEFAULT_API_URL})
  [--agent-id <id>]          register under this agent id (a restarted worker keeps its identity)
  [--member <id>]            the team member on whose behalf the goal is created (default: $PHONELOOP_MEMBER)`;

export interface ApiFlags {
  apiUrl: string;
  agentId?: string;
  member?: string;
}

/** Takes this entry's flags out of argv; the rest goes to the agent's own parser. */
export function splitApiFlags(argv: string[], env: Record<string, string | undefined>): { flags: ApiFlags; rest: string[] } {
  const own: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--(api-url|agent-id|member)(?:=(.*))?$/s.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    const value = m[2] ?? (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--") ? argv[++i]! : undefined);
    if (!value) throw new Error(`--${m[1]} needs a value.`);
    own[m[1]!] = value;
  }
  const member = own.member ?? (env.PHONELOOP_MEMBER || undefined);
  return {
    flags: { apiUrl: own["api-url"] ?? (env.PHONELOOP_API_URL || DEFAULT_API_URL), ...(own["agent-id"] ? { agentId: own["agent-id"] } : {}), ...(member ? { member } : {}) },
    rest,
  };
}

/** Fails before the phone is touched when the API is down or cannot reach its database. */
export async function checkApi(apiUrl: string): Promise<void> {
  const url = `${apiUrl.replace(/\/+$/, "")}/health`;
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    throw new ApiUnreachable(apiUrl, networkReason(e));
  }
  if (!res.ok) {
    const body = await res.text().catch(() => "");
    throw new ControlPlaneError(
      "api_unhealthy",
      `The PhoneLoop API at ${apiUrl} answers but is not healthy (HTTP ${res.status}${body ? `: ${body.slice(0, 300)}` : ""}). Check its log and its DATABASE_URL.`,
    );
  }
}

export async function main(argv = process.argv.slice(2), env: Record<string, string | undefined> = process.env): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(`${USAGE}\n${API_USAGE}`);
    return 0;
  }
  let split: ReturnType<typeof splitApiFlags>;
  try {
    split = splitApiFlags(argv, env);
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}\n${API_USAGE}`);
    return 2;
  }
  const { flags, rest } = split;
  setControlPlaneFactory(async () => {
    await checkApi(flags.apiUrl);
    return createTrpcControlPlane({ apiUrl: flags.apiUrl, ...(flags.agentId ? { agentId: flags.agentId } : {}), ...(flags.member ? { memberId: flags.member } : {}) });
  });
  try {
    return await agentCliMain(rest);
  } catch (e) {
    const code = (e as { code?: string }).code;
    console.error(`phoneloop agent: ${code ? `${code}: ` : ""}${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
