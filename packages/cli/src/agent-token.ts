// The agent token the CLI and the headless agent act with: from PHONELOOP_AGENT_TOKEN or a file named by
// --agent-token-file, never from a flag's value (flags land in shell history and process lists).
import { readFileSync } from "node:fs";
import { UsageError, type Args } from "./args.ts";
import type { Env } from "./env.ts";

export const AGENT_TOKEN_FILE_OPTION = { "agent-token-file": { type: "string" } } as const;

export const NO_AGENT_TOKEN =
  "No agent token: an operator issues one in the web app (agent tokens); put it in PHONELOOP_AGENT_TOKEN, " +
  "or in a file passed as --agent-token-file <path>.";

/** The token, or undefined when neither the file flag nor the environment names one. */
export function readAgentToken(args: Args, env: Env, readFile: (path: string) => string = (p) => readFileSync(p, "utf8")): string | undefined {
  const file = args.string("agent-token-file");
  if (!file) return env.PHONELOOP_AGENT_TOKEN;
  let token: string;
  try {
    token = readFile(file).trim();
  } catch (e) {
    throw new UsageError(`--agent-token-file ${file}: cannot read it (${(e as Error).message}).`);
  }
  if (!token.startsWith("plt_")) throw new UsageError(`--agent-token-file ${file} does not hold an agent token (one line starting with plt_).`);
  return token;
}
