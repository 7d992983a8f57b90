// `npm run suite -- …` arguments (node:util parseArgs), checked before anything starts; a mistake is a usage error
// naming the flag and what to write instead.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parsePerturbations, PERTURBATIONS, PERTURBATION_DESCRIPTIONS, type Perturbation } from "@phoneloop/virtual-phone";
import { SUITE_LEARNING, type SuiteLearning } from "./learning.ts";

export const REFERENCE_POLICY_PROFILE = "reference-policy";

export const SUITE_USAGE = `Usage: npm run suite -- --tasks <glob> [--seeds <n>] [--trials <k>] [--parallel <k>] [--model <profile>] [--scenarios <dir>] [--perturb <list>] [--learning shared]
       npm run suite -- --validate-skills [--parallel <k>] [--model <profile>] [--scenarios <dir>]

Runs the virtual phone's tasks through the real agent runtime and the state core: each attempt (a task under one
seed) gets its own virtual phone process and is a run with its replay; the task's evaluator scores it. Prints a table
(task, seed, score, steps, tokens, cost, seconds) and, last, the figures:
  tasks=<n> success_rate=<0..1> mean_steps=<n> mean_input_tokens=<n> mean_cost_usd=<n> p50_task_s=<n>

  --tasks <glob>        task ids to run: "*", "settings_*", "{mail,notes}_*" (several: comma-separated); "<glob>@<n>"
                        runs variant n of the tasks (the same task with other values: "notes_create@1"), "<glob>@*"
                        every variant; the report names a variant so
  --seeds <n>           seeds 1..n per task (default 1)
  --trials <k>          run each task and seed k times under the same settings (default 1); per task, the
                        success rate is printed with its 95% confidence interval (Wilson)
  --parallel <k>        attempts at a time (default 1)
  --model <profile>     a model profile (JSON or YAML: the executor's, planner's and summarizer's OpenAI-compatible
                        endpoints; packages/suite/README.md), or "${REFERENCE_POLICY_PROFILE}" (default): the reference
                        policy, which reads the UI tree and is no AI — it proves the harness
  --scenarios <dir>     run the tasks of every scenario file in <dir> instead of the built-in pack
  --perturb <list>      comma-separated, seeded: ${PERTURBATIONS.join(", ")}
${PERTURBATIONS.map((p) => `                          ${p.padEnd(13)}${PERTURBATION_DESCRIPTIONS[p]}`).join("\n")}
  --learning <mode>     what attempts learn from: "isolated" (default) — every attempt starts from the workspace's
                        skills, shortcuts and lessons as they were when the suite started, so the figures do not
                        depend on the order attempts ran in; "shared" — each attempt reads what earlier ones left,
                        and the order they started in is recorded with the results and printed (an "order" column)
  --validate-skills     instead of tasks: replay the workspace's candidate skills of the pack's apps (or the
                        --scenarios folder's), each in a run on a fresh phone whose goal is the skill's description
                        with its example values; the run is offered that skill, and the core validates it by use
                        when its todo is accepted. Prints per skill: validated, handed back at step k (why), used
                        but not validated, or not used; last: skills=<n> validated=<n> handed_back=<n> …
  --attempt-timeout <s> cancel an attempt still running after this many seconds (default 600)
  --api-url <url>       write to this running PhoneLoop's API with the agent token in PHONELOOP_AGENT_TOKEN (or
                        --agent-token-file); its gates wait for a person in the web app. Without it the suite starts
                        Postgres (embedded in .data, or DATABASE_URL) and the API itself, acts in the database's
                        workspace (--workspace <id|name> when there are several) and answers its gates itself.
  --agent-token-file <path>  a file holding the agent token (never a flag value)
  --workspace <id|name> the workspace to record the suite in (without --api-url)
  -h, --help            this text
`;

export class UsageError extends Error {
  readonly code = "USAGE";
}

export interface SuiteArgs {
  /** The task glob; "" with validateSkills. */
  tasks: string;
  /** Replay the workspace's candidate skills instead of running tasks (validate-skills.ts). */
  validateSkills: boolean;
  seeds: number;
  trials: number;
  parallel: number;
  model: string;
  scenarios?: string;
  perturb: Perturbation[];
  learning: SuiteLearning;
  attemptTimeoutMs: number;
  api?: { url: string; agentToken: string };
  workspace?: string;
}

function positiveInt(v: string | undefined, flag: string, dflt: number, max: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${flag} must be a whole number from 1 to ${max}, got "${v}"`);
  return n;
}

/** null: --help was asked for. */
export function parseSuiteArgs(argv: string[], env: Record<string, string | undefined>): SuiteArgs | null {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        tasks: { type: "string" },
        seeds: { type: "string" },
        trials: { type: "string" },
        parallel: { type: "string" },
        model: { type: "string" },
        scenarios: { type: "string" },
        perturb: { type: "string" },
        learning: { type: "string" },
        "attempt-timeout": { type: "string" },
        "api-url": { type: "string" },
        "agent-token-file": { type: "string" },
        workspace: { type: "string" },
        "validate-skills": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return null;
  const validateSkills = values["validate-skills"] === true;
  if (validateSkills) {
    const taskFlags = (["tasks", "seeds", "trials", "perturb", "learning"] as const).filter((f) => values[f] !== undefined);
    if (taskFlags.length) throw new UsageError(`--validate-skills replays the workspace's candidate skills, not tasks: leave out ${taskFlags.map((f) => `--${f}`).join(", ")}`);
  } else if (!values.tasks) throw new UsageError('--tasks is required: a glob over task ids, e.g. --tasks "*" for every task');
  let perturb: Perturbation[];
  try {
    perturb = parsePerturbations(values.perturb ?? "");
  } catch (e) {
    throw new UsageError(`--perturb: ${(e as Error).message}`);
  }
  const learning = (values.learning ?? "isolated") as SuiteLearning;
  if (!SUITE_LEARNING.includes(learning)) throw new UsageError(`--learning must be ${SUITE_LEARNING.map((m) => `"${m}"`).join(" or ")}, got "${values.learning}"`);
  const apiUrl = values["api-url"] ?? undefined;
  let api: SuiteArgs["api"];
  if (apiUrl) {
    if (!URL.canParse(apiUrl)) throw new UsageError(`--api-url must be a URL like http://127.0.0.1:4000, got "${apiUrl}"`);
    let token = env.PHONELOOP_AGENT_TOKEN;
    if (values["agent-token-file"]) {
      try {
        token = readFileSync(values["agent-token-file"], "utf8").trim();
      } catch (e) {
        throw new UsageError(`--agent-token-file: ${(e as Error).message}`);
      }
    }
    if (!token) throw new UsageError("--api-url needs an agent token: set PHONELOOP_AGENT_TOKEN or give --agent-token-file (issue one on the web app's team page)");
    api = { url: apiUrl, agentToken: token };
    if (values.workspace) throw new UsageError("--workspace is for a suite that starts its own API; with --api-url the agent token's workspace is used");
  } else if (values["agent-token-file"]) throw new UsageError("--agent-token-file goes with --api-url");
  return {
    tasks: values.tasks ?? "",
    validateSkills,
    seeds: positiveInt(values.seeds, "--seeds", 1, 100),
    trials: positiveInt(values.trials, "--trials", 1, 100),
    parallel: positiveInt(values.parallel, "--parallel", 1, 32),
    model: values.model ?? REFERENCE_POLICY_PROFILE,
    ...(values.scenarios ? { scenarios: values.scenarios } : {}),
    perturb,
    learning,
    attemptTimeoutMs: positiveInt(values["attempt-timeout"], "--attempt-timeout", 600, 24 * 3600) * 1000,
    ...(api ? { api } : {}),
    ...(values.workspace ? { workspace: values.workspace } : {}),
  };
}
