// `npm run agent -- --goal … --device …`. The agent cannot reach the state core itself: the composition root
// (packages/cli) provides the tRPC ControlPlane through `setControlPlaneFactory` before calling `main`: a run
// always leaves its evidence, gates and replay in the state core.
import { CliError, parseCliArgs, USAGE } from "./args.ts";
import { modelsFromArgs, runHeadless } from "./run-headless.ts";
import type { ControlPlane } from "../ports.ts";
import type { CliArgs } from "./args.ts";

export type ControlPlaneFactory = (args: CliArgs) => Promise<ControlPlane>;
let factory: ControlPlaneFactory | null = null;

export function setControlPlaneFactory(f: ControlPlaneFactory): void {
  factory = f;
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv, process.env);
  } catch (e) {
    console.error(e instanceof CliError ? e.message : String(e));
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  if (!factory) {
    console.error("No state core is wired into this entry. Run the agent with `npm run agent -- …`, which connects it to the API.");
    return 2;
  }
  const controlPlane: ControlPlane = await factory(args);
  const ac = new AbortController();
  process.once("SIGINT", () => ac.abort());
  const out = await runHeadless({
    ...(args.goal ? { goal: args.goal } : {}),
    device: args.device,
    models: modelsFromArgs(args),
    controlPlane,
    ...(args.runId ? { runId: args.runId } : {}),
    ...(args.goalId ? { goalId: args.goalId } : {}),
    config: { preapproved: args.allow, ...(args.maxSteps ? { maxStepsPerRun: args.maxSteps } : {}) },
    signal: ac.signal,
    onEvent: (e) => {
      if (e.type === "step") console.error(`#${e.stepIndex + 1} ${e.action} → ${e.outcome} (${e.promptTokens} tokens)`);
      else if (e.type === "anomaly") console.error(`! ${e.kind}: ${e.message}`);
      else if (e.type === "gate") console.error(`? gate ${e.gateId}: ${e.question}`);
    },
  });
  if (args.json) console.log(JSON.stringify(out.report, null, 2));
  else {
    console.log(`run ${out.runId}: ${out.status}`);
    console.log(out.report.conclusion);
    for (const f of out.report.findings) console.log(`- ${f}`);
    for (const b of out.report.blocked) console.log(`blocked: ${b}`);
  }
  return out.status === "completed" ? 0 : 1;
}
