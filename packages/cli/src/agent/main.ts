#!/usr/bin/env -S npx tsx
// `npm run agent -- --goal "<text>" --device <spec> …`: the headless worker's process entry. Exit codes: 0 the run
// completed, 1 it did not (or the API, the phone or the model failed), 2 usage error.
import { pathToFileURL } from "node:url";
import { UsageError } from "../args.ts";
import { EnvError, readEnv } from "../env.ts";
import { API_UNREACHABLE } from "@phoneloop/client";
import { resumableStop } from "@phoneloop/state/domain";
import { runHeadless } from "./compose.ts";
import { resumeHint } from "./resume.ts";
import { AGENT_USAGE, parseAgentArgs, type AgentArgs } from "./options.ts";

export interface AgentIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Aborts the run gracefully (SIGINT in the process entry). */
  signal?: AbortSignal;
}

export async function main(argv: string[], envSource: Record<string, string | undefined>, io: AgentIo): Promise<number> {
  let args: AgentArgs | null;
  try {
    args = parseAgentArgs(argv, readEnv(envSource));
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof EnvError)) throw e;
    io.stderr(`${e.message}\n\n${AGENT_USAGE}\n`);
    return 2;
  }
  if (!args) {
    io.stdout(`${AGENT_USAGE}\n`);
    return 0;
  }
  let started: { runId: string; agentId: string } | null = null;
  // The first line says what to resume after a crash; with --json stdout stays the report alone.
  const say = (s: string) => (args.json ? io.stderr(s) : io.stdout(s));
  try {
    const out = await runHeadless({
      apiUrl: args.apiUrl,
      ...(args.agentId ? { agentId: args.agentId } : {}),
      agentToken: args.agentToken,
      device: args.device,
      models: args.models,
      ...(args.goal ? { goal: args.goal } : {}),
      ...(args.goalId ? { goalId: args.goalId } : {}),
      ...(args.runId ? { runId: args.runId } : {}),
      ...(args.phoneControl ? { phoneControl: args.phoneControl } : {}),
      config: { preapproved: args.allow, ...(args.maxSteps ? { maxStepsPerRun: args.maxSteps } : {}), ...(args.leaseTtlMs ? { leaseTtlMs: args.leaseTtlMs } : {}) },
      ...(args.apiTimeoutMs ? { requestTimeoutMs: args.apiTimeoutMs } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      onRetry: (r) => io.stderr(`… the API did not answer ${r.procedure} (${r.reason}); attempt ${r.attempt + 1} in ${r.waitMs} ms\n`),
      onWait: (w) => io.stderr(`waiting: run ${w.runId} is held by ${w.holder} until ${w.until} (its lease); resuming then\n`),
      onEvent: (e) => {
        if (e.type === "run") {
          started = { runId: e.runId, agentId: e.agentId };
          say(`run ${e.runId} (goal ${e.goalId})${e.resumed ? " resumed" : ""}; to resume it: ${resumeHint(started, argv)}\n`);
        } else if (e.type === "step") io.stderr(`#${e.stepIndex + 1} ${e.action} → ${e.outcome} (${e.promptTokens} tokens)\n`);
        else if (e.type === "anomaly") io.stderr(`! ${e.kind}: ${e.message}\n`);
        else if (e.type === "model_progress") io.stderr(`… the ${e.role} model has not answered for ${Math.round(e.elapsedMs / 1000)} s\n`);
        else if (e.type === "gate") io.stderr(`? gate ${e.gateId}: ${e.question}\n`);
      },
    });
    if (args.json) io.stdout(`${JSON.stringify(out.report, null, 2)}\n`);
    else {
      io.stdout(`run ${out.runId}: ${out.status} (${out.endReason})\n${out.report.conclusion}\n`);
      for (const f of out.report.findings) io.stdout(`- ${f}\n`);
      for (const b of out.report.blocked) io.stdout(`blocked: ${b}\n`);
      if (out.taskScore) io.stdout(`task ${out.taskScore.task}: score ${out.taskScore.score} (${out.taskScore.reason})\n`);
    }
    // A stop whose cause can go away says what removes it and how to take the same run up again.
    const stop = resumableStop(out);
    if (stop) say(`run ${out.runId} stopped because ${stop.cause}; ${stop.remedy}: ${resumeHint(out, argv)}\n`);
    return out.status === "completed" ? 0 : 1;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    io.stderr(`phoneloop agent: ${typeof code === "string" ? `${code}: ` : ""}${e instanceof Error ? e.message : String(e)}\n`);
    // The API stayed away longer than the client retries: the run is suspended, not ended (its checkpoint is kept).
    const run = started as { runId: string; agentId: string } | null;
    if (code === API_UNREACHABLE && run) io.stderr(`run ${run.runId} suspended at its last checkpoint; when the API is back, resume it: ${resumeHint(run, argv)}\n`);
    return 1;
  }
}

/** The process: its arguments, environment and output; SIGINT cancels the run gracefully. (bin/agent.mjs runs this from its bundle.) */
export function runProcess(): void {
  const ac = new AbortController();
  process.once("SIGINT", () => ac.abort(new Error("interrupted (SIGINT)")));
  main(process.argv.slice(2), process.env, { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s), signal: ac.signal }).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) runProcess();
