// `npm run agent -- --goal … --device …`. The agent cannot reach the state core itself: the composition root
// (packages/cli) provides the tRPC ControlPlane through `setControlPlaneFactory` before calling `main`. Without
// one, `--control-plane memory` runs against the in-memory test double (nothing persists; gates asked here).
import { createInterface } from "node:readline/promises";
import { pathToFileURL } from "node:url";
import { CliError, parseCliArgs, USAGE } from "./args.ts";
import { modelsFromArgs, runHeadless } from "./run-headless.ts";
import type { ControlPlane, GateDecision } from "../ports.ts";
import type { CliArgs } from "./args.ts";

export type ControlPlaneFactory = (args: CliArgs) => Promise<ControlPlane>;
let factory: ControlPlaneFactory | null = null;

export function setControlPlaneFactory(f: ControlPlaneFactory): void {
  factory = f;
}

async function memoryControlPlane(): Promise<ControlPlane> {
  const { MemoryControlPlane } = await import("../testing/memory-control-plane.ts");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new MemoryControlPlane({
    onGate: async (g): Promise<GateDecision> => {
      const a = (await rl.question(`\nGATE: ${g.request.question}\nOptions: ${g.request.options.join(" / ")} > `)).trim();
      if (g.request.options.includes("approve")) return a.toLowerCase().startsWith("a") || a.toLowerCase() === "y" ? { decision: "approve" } : { decision: "deny", rationale: a };
      return { decision: "answer", answer: a };
    },
  });
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
  let controlPlane: ControlPlane;
  if (factory) controlPlane = await factory(args);
  else if (args.controlPlane === "memory") {
    console.error("warning: --control-plane memory uses the in-memory test double: nothing is persisted, the board will not show this run.");
    controlPlane = await memoryControlPlane();
  } else {
    console.error("No ControlPlane is wired into this entry. Run it through `npm run phoneloop -- agent …` (the state core's tRPC adapter), or pass --control-plane memory for an offline dry run.");
    return 2;
  }
  const ac = new AbortController();
  process.once("SIGINT", () => ac.abort());
  const out = await runHeadless({
    ...(args.goal ? { goal: args.goal } : {}),
    device: args.device,
    models: modelsFromArgs(args),
    controlPlane,
    ...(args.runId ? { runId: args.runId } : {}),
    ...(args.objectiveId ? { objectiveId: args.objectiveId } : {}),
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(e instanceof Error ? `${(e as { code?: string }).code ?? "error"}: ${e.message}` : String(e));
      process.exit(1);
    },
  );
}
