#!/usr/bin/env -S npx tsx
// `npm run suite -- --tasks <glob> …`: the suite runner's process entry. Exit codes: 0 every attempt ran (whatever
// its score), 1 the suite could not run or stopped early, 2 usage error.
import { pathToFileURL } from "node:url";
import type { ModelsInit } from "@phoneloop/agent";
import { REFERENCE_POLICY_MODEL, startReferencePolicyServer } from "@phoneloop/reference-policy";
import { parseSuiteArgs, REFERENCE_POLICY_PROFILE, SUITE_USAGE, UsageError, type SuiteArgs } from "./options.ts";
import { loadModelProfile, ProfileError } from "./profile.ts";
import { formatTable, formatTaskSuccess, learningLine, settingsLine, summaryLine } from "./report.ts";
import { runSuite } from "./runner.ts";
import { startSuiteStack, type SuiteStack } from "./stack.ts";
import { selectTasks, TaskSelectionError } from "./tasks.ts";
import { skillValidationLine, skillValidationSummary, validateSkills } from "./validate-skills.ts";

export interface SuiteIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  signal?: AbortSignal;
}

export async function main(argv: string[], env: Record<string, string | undefined>, io: SuiteIo): Promise<number> {
  let args: SuiteArgs | null;
  let tasks;
  try {
    args = parseSuiteArgs(argv, env);
    if (!args) {
      io.stdout(SUITE_USAGE);
      return 0;
    }
    tasks = args.validateSkills ? [] : selectTasks(args.tasks, args.scenarios);
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof TaskSelectionError || (e as { code?: string }).code === "SCENARIO_INVALID")) throw e;
    io.stderr(`${(e as Error).message}\n\n${SUITE_USAGE}`);
    return 2;
  }
  const stops: (() => Promise<void>)[] = [];
  try {
    let profile: { name: string; models: ModelsInit };
    if (args.model === REFERENCE_POLICY_PROFILE) {
      const policy = await startReferencePolicyServer();
      stops.push(policy.stop);
      const role = { baseURL: policy.baseURL, model: REFERENCE_POLICY_MODEL };
      profile = { name: REFERENCE_POLICY_PROFILE, models: { executor: role, planner: role, summarizer: role } };
    } else profile = loadModelProfile(args.model, env);

    let stack: SuiteStack | null = null;
    if (!args.api) {
      stack = await startSuiteStack({ ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}), ...(args.workspace ? { workspace: args.workspace } : {}), ...(env.PHONELOOP_SECRET_KEY ? { secretKey: env.PHONELOOP_SECRET_KEY } : {}), log: (l) => io.stderr(`${l}\n`) });
      stops.unshift(stack.stop);
      io.stderr(`Recording in workspace "${stack.workspace.name}" through the API at ${stack.apiUrl}; gates are answered by the suite.\n`);
    }
    const api = args.api ?? { url: stack!.apiUrl, agentToken: stack!.agentToken };
    if (args.validateSkills) {
      io.stderr(`replaying the workspace's candidate skills of the ${args.scenarios ? `apps in ${args.scenarios}` : "pack's apps"} with ${profile.name}; ${args.parallel} at a time\n`);
      const validations = await validateSkills({
        apiUrl: api.url,
        agentToken: api.agentToken,
        profile,
        ...(args.scenarios ? { scenarios: args.scenarios } : {}),
        parallel: args.parallel,
        attemptTimeoutMs: args.attemptTimeoutMs,
        ...(stack ? { answerGate: stack.answerGate } : {}),
        ...(io.signal ? { signal: io.signal } : {}),
      });
      for (const v of validations) io.stdout(`${skillValidationLine(v)}\n`);
      io.stdout(`${skillValidationSummary(validations)}\n`);
      return io.signal?.aborted ? 1 : 0;
    }
    io.stderr(`${tasks.length} task(s) × ${args.seeds} seed(s)${args.trials > 1 ? ` × ${args.trials} trials` : ""} with ${profile.name}${args.perturb.length ? `, perturbed: ${args.perturb.join(", ")}` : ""}; ${args.parallel} at a time\n`);
    const out = await runSuite({
      apiUrl: api.url,
      agentToken: api.agentToken,
      profile,
      tasks,
      tasksGlob: args.tasks,
      scenarios: args.scenarios ?? "pack",
      seeds: args.seeds,
      trials: args.trials,
      parallel: args.parallel,
      perturb: args.perturb,
      learning: args.learning,
      attemptTimeoutMs: args.attemptTimeoutMs,
      ...(stack ? { answerGate: stack.answerGate } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      onAttempt: (a) => io.stderr(`${a.taskId} seed ${a.seed}${a.trial > 1 || args.trials > 1 ? ` trial ${a.trial}` : ""}: score ${a.score} in ${(a.durationMs / 1000).toFixed(1)} s${a.runId ? ` (run ${a.runId})` : ""} — ${a.reason}\n`),
    });
    io.stdout(`${formatTable(out.attempts)}\n\n${formatTaskSuccess(out.attempts)}\n`);
    io.stdout(`${learningLine(out)}\n`);
    io.stdout(`${settingsLine(out.settings)}\n`);
    io.stdout(`suite run ${out.suiteRunId} (${out.status}): every attempt's replay is /runs/<run id>; the suite is on /suites\n`);
    io.stdout(`${summaryLine(out.summary)}\n`);
    return out.status === "completed" ? 0 : 1;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (e instanceof ProfileError) io.stderr(`${e.message}\n`);
    else io.stderr(`phoneloop suite: ${typeof code === "string" ? `${code}: ` : ""}${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
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
