// `npm run bench -- learn [task-id …]`: does what the agent learns pay off on work it was not learnt from?
// Every run is the headless agent (packages/cli's composition root: the API over a durable Postgres through
// packages/client, a fresh virtual phone over real ADB/TCP), with one scripted model for every run:
// - the planner makes one todo per piece of work, titled in the pack's own wording with the run's values (a task
//   over two apps gets a todo per app; the second one's title is the wording the single-app task of that app uses);
// - the executor follows the task's path through the UI (the pack's solutions, taking the task's values), the same
//   way in every run — and uses a skill only when the prompt's SKILLS list offers one whose description, read as a
//   template, the todo's title fills: it answers `use_skill {skill, params}` with the values the title gives. It never
//   reads the database or the skill store; it is told about skills through the prompt alone.
// Learning set: the single-app tasks of the pack that have variants, at their own values (variant 0). Held-out runs:
// the same tasks at every other variant (other values), and the tasks over two apps whose second app's work is one
// of the learnt tasks' (a sub-path), the sealed values of bench/learn-sealed-variants.json (written from the
// pack's definitions by an author who never read the learning code, after the rules last changed; their figures are
// printed on their own line, as the ones no rule was tuned on) and the earlier sealed values whose misses were read
// and fixed (bench/learn-seen-variants.json: tuned on now, counted with the pack's variants). Each held-out run is made twice on fresh phones: once with the workspace's
// learning as the learning set left it, once offered no learning at all (no skills, lessons or shortcuts, and
// nothing saved): the same run's counterfactual.
// model calls = the requests the model server answered (planner, executor, summarizer) in a run; steps = the run's
// step rows plus the steps its skills performed (a skill's replay is as many steps as it acted).
// model_calls_ratio = Σ held-out calls with learning / Σ the same runs' calls without; steps_ratio likewise;
// success_* = the fraction of runs whose evaluator scored 1 (first = the learning set); skills_validated = skills
// whose status is validated when the bench ends (validated by use in the held-out runs, never by a script).
// LEARN_OFFER_NONE=1 (a break check) gives the held-out runs no learning either: the ratios go to ~1.
// Last line: model_calls_ratio=<n> steps_ratio=<n> success_first=<0..1> success_heldout=<0..1> heldout_runs=<n> skills_validated=<n>.
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { countTextTokens, fencedRegions, type AgentEvent } from "@phoneloop/agent";
import { startScriptedModelServer, planOf, packExecutor as executor, SINGLE_APP_TASKS as SINGLE, SUBPATH_TASKS as SUBPATH, unlearned, type PackWork as Work, type RecordedRequest, type ScriptedReply } from "@phoneloop/agent/testing";
import { runHeadless } from "@phoneloop/cli";
import { resolveGate } from "@phoneloop/state";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { existsSync, readFileSync } from "node:fs";
import { startBenchCore } from "./support/stack.ts";

/** DEBUG_LEARN=1 prints each executor reply with the skills its prompt offered. */
const debugged = (answer: (req: RecordedRequest) => ScriptedReply) => (req: RecordedRequest): ScriptedReply => {
  const out = answer(req);
  if (process.env.DEBUG_LEARN) for (const m of req.lastUserText.matchAll(/The skill "[^"]+" (?:stopped before|reached) its step [^\n]*/g)) console.log(`  ! ${m[0]}`);
  if (process.env.DEBUG_LEARN) console.log(`  ${/^TODO: (.*)$/m.exec(req.lastUserText)?.[1] ?? ""} <- ${"text" in out ? out.text : ""}${/SKILLS \(/.test(req.lastUserText) ? ` | skills: ${(fencedRegions(req.lastUserText).find((x) => /^- "/.test(x.trim())) ?? "").replace(/\n/g, " ")}` : ""}`);
  return out;
};

const core = await startBenchCore("learn", { fast: true });
const { db, workspace, admin, apiUrl, issueToken } = core;
// A person approves the gates the runs open (sending, paying): the person's side is not what is measured.
const approve = (gateId: string) => void resolveGate(db, { gateId, userId: admin.id, decision: "approve", rationale: "benchmark" }).catch(() => undefined);
const credentialStore = new MemoryCredentialStore("bench@phoneloop");
const benchKey = await credentialStore.generateKey();
const adbKeys = [adbPublicKeyLine(benchKey.buffer, benchKey.name ?? credentialStore.name)];
countTextTokens("warm up the tokenizer once per process");

interface Outcome {
  task: string;
  /** The pack's variant, `s<n>`: the n-th sealed values of bench/learn-sealed-variants.json, or `k<n>`: the n-th of
   *  bench/learn-seen-variants.json. */
  variant: number | string;
  learning: boolean;
  calls: number;
  steps: number;
  score: number;
  skillSteps: number;
}

// Sealed held-out values: written from the pack's task and app definitions by an author who never read the learning
// code, after the distillation rules were last changed; the figures on them are the ones not tuned on.
type ValueSets = Record<string, Record<string, string>[]>;
const valueSets = (file: URL): ValueSets => (existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { variants: ValueSets }).variants : {});
const SEALED = valueSets(new URL("./learn-sealed-variants.json", import.meta.url));
// Earlier sealed values whose misses were read and fixed: tuned on now.
const SEEN = valueSets(new URL("./learn-seen-variants.json", import.meta.url));

let n = 0;
async function runOnce(task: string, variant: number | string, learning: boolean): Promise<Outcome> {
  const seed = 100 + n++ * 10;
  const phone: VirtualPhone = await startVirtualPhone({ scenario: "home", seed, adbKeys });
  const started = phone.engine.startTask(task, typeof variant === "number" ? { seed, variant } : { seed, params: (variant.startsWith("s") ? SEALED : SEEN)[task]![Number(variant.slice(1)) - 1]! });
  const goal = started.goal;
  const params = Object.fromEntries(Object.entries(started.params).map(([k, v]) => [k, String(v)]));
  const work: Work[] = SINGLE[task] ? [{ title: goal, steps: SINGLE[task]!(params) }] : SUBPATH[task]!(params);
  const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
  const server = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner", replies: [planOf(work.map((w, i) => ({ id: `t${i + 1}`, title: w.title })))], repeatLast: true },
      { match: (r) => r.model === "summarizer", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Done.", lessons: [{ kind: "worked", text: "Following the app's own path straight to the form worked." }] }) }], repeatLast: true },
      { match: (r) => r.model === "executor", replies: [debugged(executor(work))], repeatLast: true },
    ],
  });
  const models = { executor: { baseURL: server.baseURL, model: "executor" }, planner: { baseURL: server.baseURL, model: "planner" }, summarizer: { baseURL: server.baseURL, model: "summarizer" } };
  const onEvent = (e: AgentEvent) => {
    if (e.type === "gate") approve(e.gateId);
  };
  try {
    const agentToken = await issueToken(`bench ${task}@${variant} ${seed}`);
    const out = await runHeadless({ apiUrl, agentToken, agentId: `agent_bench_${seed}`, device, models, goal, agentName: "bench", config: { maxStepsPerTodo: 60, maxStepsPerRun: 80 }, onEvent, ...(learning ? {} : { controlPlaneView: unlearned }) });
    const rows = await db.step.count({ where: { runId: out.runId } });
    const skillSteps = (await db.evidence.findMany({ where: { runId: out.runId, kind: "action" }, select: { data: true } })).filter((e) => (e.data as { skill?: unknown } | null)?.skill).length;
    const scored = phone.engine.evaluate(task, { answer: [out.report.conclusion, ...out.report.findings].join("\n") });
    const o = { task, variant, learning, calls: server.requests.length, steps: rows + skillSteps, score: scored.score, skillSteps };
    console.log(`${task}@${variant} ${learning ? "learning" : "unlearned"}: ${o.calls} model calls, ${o.steps} steps (${skillSteps} by a skill), score ${o.score}${scored.score < 1 ? ` (${scored.reason})` : ""}`);
    return o;
  } finally {
    await server.stop();
    await device.close().catch(() => undefined);
    await phone.stop();
  }
}

/** Runs jobs a few at a time: a run mostly waits on its phone, and each has its own phone, model and agent. */
async function inParallel<T>(jobs: (() => Promise<T>)[], parallel = Number(process.env.LEARN_PARALLEL ?? 4)): Promise<T[]> {
  const out: T[] = [];
  const queue = [...jobs];
  await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) out.push(await job());
  }));
  return out;
}

const only = process.argv.slice(2);
const pick = (ids: string[]) => ids.filter((t) => !only.length || only.includes(t));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
try {
  const probe = await startVirtualPhone({ scenario: "home", seed: 1, adbKeys });
  const variantsOf = (id: string) => probe.engine.task(id).variants?.length ?? 0;
  const learnt = pick(Object.keys(SINGLE)).filter((t) => variantsOf(t) > 0);
  const subpath = pick(Object.keys(SUBPATH));
  await probe.stop();
  const count = (sets: ValueSets) => learnt.reduce((a, t) => a + (sets[t]?.length ?? 0), 0);
  console.log(`learning set: ${learnt.length} tasks at their own values; held out: their ${sum(learnt.map(variantsOf))} other variants, ${subpath.length} tasks sharing a sub-path, ${count(SEEN)} earlier sealed values and ${count(SEALED)} sealed values`);

  const first = await inParallel(learnt.map((t) => () => runOnce(t, 0, true)));
  const sealed = learnt.flatMap((t) => (SEALED[t] ?? []).map((_, i) => [t, `s${i + 1}`] as const));
  const seen = learnt.flatMap((t) => (SEEN[t] ?? []).map((_, i) => [t, `k${i + 1}`] as const));
  // The sealed values run first: what the other held-out runs repair or validate cannot help them.
  const heldOut: (readonly [string, number | string])[] = [...sealed, ...learnt.flatMap((t) => Array.from({ length: variantsOf(t) }, (_, i) => [t, i + 1] as const)), ...subpath.map((t) => [t, 0] as const), ...seen];
  const withLearning = process.env.LEARN_OFFER_NONE !== "1";
  const held = await inParallel(heldOut.map(([t, v]) => () => runOnce(t, v, withLearning)));
  const base = await inParallel(heldOut.map(([t, v]) => () => runOnce(t, v, false)));
  const validated = await db.skill.count({ where: { workspaceId: workspace.id, status: "validated" } });
  const skills = await db.skill.findMany({ where: { workspaceId: workspace.id }, orderBy: { name: "asc" } });
  for (const s of skills) console.log(`skill "${s.name}" (${s.app.replace("com.phoneloop.", "")}) v${s.version} ${s.status}: ${(s.body as { params?: string[] }).params?.map((p) => `{${p}}`).join(" ") || "no params"}, used ${s.successes} ok, ${s.failures} handed back`);
  if (process.env.DEBUG_LEARN) for (const s of skills) console.log(`  ${s.name}: ${(s.body as { steps: { action: { type: string; text?: string }; target?: { text?: string; resourceId?: string } }[] }).steps.map((st) => `${st.action.type}${st.target ? `[${st.target.resourceId ?? ""}|${st.target.text ?? ""}]` : ""}${st.action.text ? `"${st.action.text}"` : ""}`).join(" → ")}`);
  console.log(`held out without learning: success=${mean(base.map((o) => (o.score === 1 ? 1 : 0))).toFixed(3)} mean_calls=${mean(base.map((o) => o.calls)).toFixed(2)}; with: mean_calls=${mean(held.map((o) => o.calls)).toFixed(2)}, ${held.filter((o) => o.skillSteps > 0).length} of ${held.length} used a skill`);
  const ratioOf = (k: "calls" | "steps", keep: (o: Outcome) => boolean) => sum(held.filter(keep).map((o) => o[k])) / Math.max(1, sum(base.filter(keep).map((o) => o[k])));
  const ratio = (k: "calls" | "steps") => ratioOf(k, () => true);
  const isSealed = (o: Outcome) => typeof o.variant === "string" && o.variant.startsWith("s");
  const successOf = (keep: (o: Outcome) => boolean) => mean(held.filter(keep).map((o) => (o.score === 1 ? 1 : 0))).toFixed(3);
  if (sealed.length) {
    console.log(`sealed values (not tuned on): model_calls_ratio=${ratioOf("calls", isSealed).toFixed(3)} steps_ratio=${ratioOf("steps", isSealed).toFixed(3)} success=${successOf(isSealed)} runs=${held.filter(isSealed).length}`);
    console.log(`pack variants, sub-path tasks and earlier sealed values (tuned on): model_calls_ratio=${ratioOf("calls", (o) => !isSealed(o)).toFixed(3)} steps_ratio=${ratioOf("steps", (o) => !isSealed(o)).toFixed(3)} success=${successOf((o) => !isSealed(o))} runs=${held.filter((o) => !isSealed(o)).length}`);
  }
  console.log(`model_calls_ratio=${ratio("calls").toFixed(3)} steps_ratio=${ratio("steps").toFixed(3)} success_first=${mean(first.map((o) => (o.score === 1 ? 1 : 0))).toFixed(3)} success_heldout=${mean(held.map((o) => (o.score === 1 ? 1 : 0))).toFixed(3)} heldout_runs=${held.length} skills_validated=${validated}`);
} finally {
  await core.stop();
}
