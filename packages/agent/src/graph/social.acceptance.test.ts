// Acceptance on the virtual phone over real ADB: the social app's search task with update dialog, login wall,
// slow results (skeleton) and follow-suggestion modal completes and the evaluator scores 1.
// The model is scripted by matching the request (it reads the element list the runtime sent, like a model would).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { runAgent } from "./run.ts";
import { WorkerKilled } from "./state.ts";
import type { Device } from "../ports.ts";
import { planOf } from "../testing/harness.ts";
import { useHarness } from "../testing/use-harness.ts";
import { FakeClock } from "../testing/fake-clock.ts";
import type { RecordedRequest, ScriptedReply } from "../testing/scripted-model-server.ts";
import { fencedRegions } from "../prompts/fence.ts";

const reply = (a: Record<string, unknown>): ScriptedReply => ({ text: JSON.stringify(a) });

/** Index of the listed element with this resource id, or of the first line matching a pattern. */
function elementIndex(req: RecordedRequest, idOrPattern: string | RegExp): string | undefined {
  const screen = fencedRegions(req.lastUserText).at(-1) ?? "";
  for (const line of screen.split("\n")) {
    const m = /^\[(\d+)\]/.exec(line);
    if (!m) continue;
    if (typeof idOrPattern === "string" ? new RegExp(`id="?${idOrPattern}"?(\\s|$)`).test(line) : idOrPattern.test(line)) return m[1];
  }
  return undefined;
}

/** A scripted executor for the social search task: dismisses what blocks, searches, reads three posts, answers. */
function socialExecutor(query: string) {
  let typed = false;
  const opened = new Set<string>();
  const summary =
    "Three main views: (1) privacy and latency — agents should run on-device first; (2) reliability — popups, login walls and flaky screens break naive agents; (3) cost — dozens of screenshots per task cost many tokens.";
  return (req: RecordedRequest): ScriptedReply => {
    const at = (x: string | RegExp) => elementIndex(req, x);
    for (const id of ["update_later", "login_wall_not_now", "follow_not_now"]) {
      const i = at(id);
      if (i) return reply({ type: "click", element: i, intent: "dismiss the popup blocking the task" });
    }
    if (at("body")) return reply({ type: "navigate_back", intent: "back to the results" });
    if (at("search_input") && !typed) {
      typed = true;
      return reply({ type: "click_then_type", element: at("search_input")!, text: query, intent: "type the search query" });
    }
    if (at("search_input") && typed && !at("results_list")) return reply({ type: "keyboard_enter", intent: "submit the search" });
    if (at("results_list")) {
      if (opened.size >= 3) return reply({ type: "answer", text: summary, intent: "report the views" });
      const screen = fencedRegions(req.lastUserText).at(-1) ?? "";
      const line = screen.split("\n").find((l) => /^\[\d+\] "?LinearLayout/.test(l) && !opened.has(l.replace(/^\[\d+\]\s*/, "")));
      if (line) {
        opened.add(line.replace(/^\[\d+\]\s*/, ""));
        return reply({ type: "click", element: /^\[(\d+)\]/.exec(line)![1], intent: "open a post to read it" });
      }
    }
    if (at("action_search")) return reply({ type: "click", element: at("action_search")!, intent: "open search" });
    return reply({ type: "wait", ms: 500, intent: "wait for the screen to load" });
  };
}

describe("social search task on the virtual phone", () => {
  // The phone's skeletons, popups and toasts run on the runtime's clock: a `wait` the model asks for moves the phone's
  // time as much as the runtime's, so how many waits a slow load takes does not depend on how fast this machine is.
  const clock = new FakeClock();
  let phone: VirtualPhone;
  let device: AdbDevice;
  // Each test's harness stops in its afterEach, before the phone this describe block shares is stopped.
  const harness = useHarness();
  beforeAll(async () => {
    // the phone already lists the agent's key in adb_keys, as a phone that allowed this computer does
    const credentialStore = new MemoryCredentialStore();
    const key = await credentialStore.generateKey();
    phone = await startVirtualPhone({ scenario: "social", seed: 7, clock, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
    device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
  });
  afterAll(async () => {
    await device?.close();
    await phone?.stop();
  });

  it("completes through update dialog, login wall, slow load and follow modal; the evaluator scores 1", async () => {
    const { task, goal } = phone.engine.startTask("social_collect_views");
    const executor = socialExecutor(String((task.params as Record<string, unknown>).query));
    let gates = 0;
    const h = await harness({
      clock,
      device,
      executor: Array.from({ length: 60 }, () => executor),
      planner: [planOf([{ id: "collect", title: goal, app: "com.phoneloop.social" }])],
      summarizer: [{ text: JSON.stringify({ findings: [], conclusion: "Collected the main views." }) }],
      // The user approves typing the query (confirm tier); nothing high-risk may be asked for in this task.
      onGate: (g) => (gates++, g.input.question.includes("high-risk") ? { status: "denied" } : { status: "approved" }),
    });
    const popupsSeen = new Set<string>();
    phone.engine.on("change", () => {
      const log = (phone.engine.state() as { log?: { event: string; popup?: string }[] }).log ?? [];
      for (const e of log) if (e.event === "popup" && e.popup) popupsSeen.add(e.popup);
    });
    const out = await runAgent(h.ports, { goal, agent: { name: "acceptance", kind: "headless", capabilities: ["phone"] }, config: { maxStepsPerTodo: task.maxSteps } });
    if (process.env.DEBUG_SOCIAL || out.status !== "completed") console.log(JSON.stringify({ report: out.report, steps: h.cp.stepsOf(out.runId).map((s) => `${s.index} ${JSON.stringify(s.action)} ${String(s.outcome.outcome)}`), log: (phone.engine.state() as { log: unknown[] }).log }, null, 1));
    expect(out.status).toBe("completed");
    const answer = out.report.findings.find((f) => f.includes("Three main views"));
    expect(answer).toBeDefined();
    const evaluation = phone.engine.evaluate(task.id, { answer: answer! });
    expect(evaluation.checks.filter((c) => !c.passed)).toEqual([]);
    expect(evaluation.score).toBe(1);
    // The run really met the obstacles it is meant to survive.
    const log = (phone.engine.state() as { log: { event: string; popup?: string }[] }).log;
    const popups = new Set(log.filter((e) => e.event === "popup").map((e) => e.popup));
    expect(popups.has("update")).toBe(true);
    expect(popups.has("login_wall") || popups.has("follow_suggestion")).toBe(true);
    expect(gates).toBeLessThanOrEqual(1);
    // Every step left evidence; every model call has usage.
    const steps = h.cp.stepsOf(out.runId);
    expect(steps.length).toBeGreaterThan(8);
    expect(h.cp.evidenceList({ kind: "observation" }).length).toBeGreaterThanOrEqual(steps.length);
  });

  it("a worker killed mid-run is resumed by another from the last checkpoint: no step repeated, no evidence lost, score 1", async () => {
    const { task, goal } = phone.engine.startTask("social_collect_views");
    const executor = socialExecutor(String((task.params as Record<string, unknown>).query));
    const h = await harness({
      clock,
      device,
      executor: Array.from({ length: 60 }, () => executor),
      planner: [planOf([{ id: "collect", title: goal, app: "com.phoneloop.social" }])],
      onGate: () => ({ status: "approved" }),
    });
    // Worker A's process dies right after its 5th input reached the phone, before it could record that step.
    const kill = new AbortController();
    let inputs = 0;
    const dying = new Proxy(device, {
      get(target, key) {
        const v = Reflect.get(target, key, target);
        if (typeof v !== "function") return v;
        if (["tap", "typeText", "key", "scroll", "swipe"].includes(String(key)))
          return async (...args: unknown[]) => {
            await (v as (...a: unknown[]) => Promise<void>).apply(target, args);
            if (++inputs === 5) kill.abort();
          };
        return (v as (...a: unknown[]) => unknown).bind(target);
      },
    }) as Device;
    const portsA = { ...h.ports, device: dying };
    await expect(runAgent(portsA, { goal, agent: { name: "worker-a", kind: "headless", capabilities: ["phone"] }, kill: kill.signal, config: { leaseTtlMs: 30_000 } })).rejects.toBeInstanceOf(WorkerKilled);
    const runId = [...h.cp.runs.keys()].at(-1)!;
    const before = new Map([...h.cp.evidence.entries()].map(([k, v]) => [k, v.id]));
    const eventsBefore = phone.engine.state() as { log: { event: string }[] };
    const searchesBefore = eventsBefore.log.filter((e) => e.event === "search").length;
    h.clock.advance(31_000);
    const out = await runAgent(h.ports, { runId, agent: { name: "worker-b", kind: "headless", capabilities: ["phone"] }, config: { leaseTtlMs: 30_000 } });
    expect(out.resumed).toBe(true);
    expect(out.status).toBe("completed");
    const steps = h.cp.stepsOf(runId);
    expect(steps.map((s) => s.index)).toEqual(steps.map((_, i) => i));
    expect(steps.filter((s) => /^outcome unknown: its record is missing/.test(String(s.outcome.outcome)))).toHaveLength(1);
    for (const [k, id] of before) expect(h.cp.evidence.get(k)?.id).toBe(id);
    const log = (phone.engine.state() as { log: { event: string }[] }).log;
    // The search was submitted once in all: nothing worker A did was done again by worker B.
    expect(searchesBefore).toBe(1);
    expect(log.filter((e) => e.event === "search")).toHaveLength(1);
    const answer = out.report.findings.find((f) => f.includes("Three main views"))!;
    expect(phone.engine.evaluate(task.id, { answer }).score).toBe(1);
  });
});
