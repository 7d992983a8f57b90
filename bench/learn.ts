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
// of the learnt tasks' (a sub-path). Each held-out run is made twice on fresh phones: once with the workspace's
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
import { countTextTokens, fencedRegions, type AgentEvent, type ControlPlane } from "@phoneloop/agent";
import { startScriptedModelServer, planOf, type RecordedRequest, type ScriptedReply } from "@phoneloop/agent/testing";
import { runHeadless } from "@phoneloop/cli";
import { resolveGate } from "@phoneloop/state";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { startBenchCore } from "./support/stack.ts";

const reply = (a: Record<string, unknown>): ScriptedReply => ({ text: JSON.stringify(a) });
const P = (app: string) => `com.phoneloop.${app}`;

// ── the tasks' paths, in the agent's action space, taking the task's values (the pack's own UI solutions) ──
type Step = { open: string } | { tap: string } | { type: [id: string, text: string] } | { enter: true } | { back: true } | { wait: number } | { scrollTo: string } | { wheel: [id: string, steps: number] };
type Params = Record<string, string>;
const BACK: Step = { back: true };
const search = (q: string): Step[] => [{ open: P("social") }, { tap: "nav_search" }, { type: ["search_input", q] }, { enter: true }, { wait: 800 }];
const newEvent = (p: Params): Step[] => [{ open: P("calendar") }, { tap: "Create new event" }, { type: ["event_title", p.title!] }, { type: ["event_date", p.date!] }, { type: ["event_time", p.time!] }, BACK, { tap: "Save" }];
const newContact = (p: Params): Step[] => [{ open: P("contacts") }, { tap: "Create contact" }, { type: ["contact_name", p.name!] }, { type: ["contact_phone_input", p.phone!] }, BACK, { tap: "Save" }];
const text = (name: string, body: string): Step[] => [{ open: P("messages") }, { tap: name }, { type: ["compose_message_text", body] }, BACK, { tap: "Send" }];
const newNote = (title: string, body: string): Step[] => [{ open: P("notes") }, { tap: "New note" }, { type: ["note_title", title] }, { type: ["note_body", body] }, BACK, { tap: "Save" }];
/** The new-alarm dialog's wheels start at 07:00 and wrap; a minute is reached the short way round. */
const alarm = (p: Params): Step[] => {
  const [h, m] = p.time!.split(":").map(Number) as [number, number];
  return [{ open: P("clock") }, { tap: "Add alarm" }, { wheel: ["hour_picker", h - 7] }, { wheel: ["minute_picker", m <= 30 ? m : m - 60] }, { type: ["alarm_label", p.label!] }, BACK, { tap: "OK" }];
};

/** A todo as the scripted planner writes it, with the path that does it. */
interface Work {
  title: string;
  steps: Step[];
}
/** The learning set's tasks: one app, one todo titled by the goal itself. */
const SINGLE: Record<string, (p: Params) => Step[]> = {
  settings_connect_cafe: (p) => [{ open: "com.android.settings" }, { tap: "Network & internet" }, { tap: "Internet" }, { tap: p.ssid! }],
  calendar_add_event: newEvent,
  calendar_chinese_event: newEvent,
  contacts_add: newContact,
  contacts_add_chinese: newContact,
  messages_send: (p) => text(p.name!, p.text!),
  messages_send_chinese: (p) => text(p.name!, p.text!),
  clock_set_alarm: alarm,
  shop_add_to_cart: (p) => [{ open: P("shop") }, { tap: p.a! }, { tap: "Add to cart" }, BACK, { tap: p.b! }, { tap: "Add to cart" }],
  shop_checkout: (p) => [{ open: P("shop") }, { scrollTo: p.item! }, { tap: "Buy now" }, { type: ["shipping_address", p.address!] }, BACK, { tap: "Pay now" }],
  notes_create: (p) => newNote(p.title!, p.body!),
  notes_chinese: (p) => newNote(p.title!, p.body!),
  social_search_chinese: (p) => [...search(p.query!), { tap: "Dr. Lin Zhou" }, { tap: "save" }],
};
/** Tasks over two apps whose second app's work is a learnt task's: a todo per app, the second in that task's wording. */
const SUBPATH: Record<string, (p: Params) => Work[]> = {
  shop_to_messages: (p) => [
    { title: `Find the price of the '${p.item}' in Shop.`, steps: [{ open: P("shop") }, { tap: p.item! }] },
    { title: `Send the text message 'The earbuds cost $59.00' to ${p.name}.`, steps: text(p.name!, "The earbuds cost $59.00") },
  ],
  contacts_to_messages: (p) => [
    { title: `Look up ${p.who}'s phone number in Contacts.`, steps: [{ open: P("contacts") }, { tap: p.who! }] },
    { title: `Send the text message 'Maria: +34 600 123 456' to ${p.to}.`, steps: text(p.to!, "Maria: +34 600 123 456") },
  ],
  calendar_to_messages: (p) => [
    { title: `Check the calendar for the '${p.event}' event.`, steps: [{ open: P("calendar") }, { tap: p.event! }] },
    { title: `Send the text message 'Team sync is on 2026-12-01 at 10:00' to ${p.name}.`, steps: text(p.name!, "Team sync is on 2026-12-01 at 10:00") },
  ],
  social_to_notes: (p) => [
    { title: `Search Loop for '${p.query}' and open the most liked post.`, steps: [...search(p.query!), { tap: "Dr. Lin Zhou" }] },
    { title: `Create a note titled '${p.title}' containing 'On-device first: privacy and latency beat model size'.`, steps: newNote(p.title!, "On-device first: privacy and latency beat model size") },
  ],
};

const DISMISS = ["Later", "Not now", "No thanks", "Don't allow"];

interface Line {
  index: string;
  text: string;
  id: string;
  box: number[];
}
function screenLines(req: RecordedRequest): Line[] {
  const out: Line[] = [];
  for (const line of (fencedRegions(req.lastUserText).at(-1) ?? "").split("\n")) {
    const m = /^\[(\d+)\] "[^"]*"(?:\([^)]*\))? "((?:[^"\\]|\\.)*)"(?: id="([^"]*)")? @\[([\d,]+)\]/.exec(line);
    if (m) out.push({ index: m[1]!, text: JSON.parse(`"${m[2]!}"`) as string, id: m[3] ?? "", box: m[4]!.split(",").map(Number) });
  }
  return out;
}
const findLine = (lines: Line[], key: string) => lines.find((l) => l.id === key) ?? lines.find((l) => l.text === key) ?? lines.find((l) => l.text.startsWith(key));

/** The skills the prompt offers: name, description, parameters (the executor prompt's SKILLS lines). */
function offeredSkills(text: string): { name: string; description: string; params: string[] }[] {
  if (!/SKILLS \(/.test(text)) return [];
  const region = fencedRegions(text).find((r) => /^- "/.test(r.trim())) ?? "";
  const out = [];
  for (const m of region.matchAll(/^- "([^"]+)" \([^)]*\): (.*?); (?:params: ([^;]*); )?/gm)) out.push({ name: m[1]!, description: m[2]!, params: [...(m[3] ?? "").matchAll(/\{([a-z][a-z0-9_]*)\}/g)].map((x) => x[1]!) });
  return out;
}

/** The values a title gives a description read as a template ({name} places), or null when it does not fill it. */
function fill(description: string, title: string): Record<string, string> | null {
  const names: string[] = [];
  const pattern = description
    .trim()
    .replace(/[.!。！]$/u, "")
    .split(/(\{[a-z][a-z0-9_]*\})/)
    .map((part) => {
      const place = /^\{([a-z][a-z0-9_]*)\}$/.exec(part);
      if (place) {
        names.push(place[1]!);
        return "(.+?)";
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s*");
    })
    .join("");
  if (!names.length) return null;
  const m = new RegExp(`^${pattern}[.!。！]?$`, "iu").exec(title.trim());
  if (!m) return null;
  const values: Record<string, string> = {};
  names.forEach((n, i) => (values[n] = m[i + 1]!.trim()));
  return values;
}

/** The scripted executor of one run: each todo's path, or a skill the prompt offers that the todo's title fills. */
function executor(work: Work[]) {
  const state = new Map<string, { ptr: number; skillTried: boolean; resumed: boolean; wheelLeft: number | null }>();
  return (req: RecordedRequest): ScriptedReply => {
    const text = req.lastUserText;
    const title = /^TODO: (.*)$/m.exec(text)?.[1]?.trim() ?? "";
    const todo = work.find((w) => w.title === title) ?? work[0]!;
    const st = state.get(todo.title) ?? { ptr: 0, skillTried: false, resumed: false, wheelLeft: null };
    state.set(todo.title, st);
    const finish = () => reply({ type: "status", status: "complete", summary: "Done." });
    if (/The skill "[^"]+" ran its/.test(text) && !/stopped before/.test(text)) return finish();
    const stopped = /The skill "[^"]+" (?:stopped before|reached) its step (\d+) of/.exec(text);
    if (stopped && !st.resumed) {
      // Handed back before its step k: go on from the k-th acting step of the path (waits are no skill steps).
      st.resumed = true;
      const k = Number(stopped[1]) - 1;
      const acting = todo.steps.map((s, i) => ("wait" in s ? -1 : i)).filter((i) => i >= 0);
      st.ptr = acting[k] ?? acting.at(-1) ?? 0;
    }
    if (!st.skillTried) {
      for (const s of offeredSkills(text)) {
        const values = fill(s.description, todo.title);
        if (values && s.params.every((p) => values[p])) {
          st.skillTried = true;
          return reply({ type: "use_skill", skill: s.name, params: values, intent: "the todo is this skill's work with other values" });
        }
      }
    }
    const lines = screenLines(req);
    const dismiss = lines.find((l) => DISMISS.includes(l.text));
    if (dismiss) return reply({ type: "click", element: dismiss.index, intent: "dismiss the popup" });
    if (st.ptr >= todo.steps.length) return finish();
    const s = todo.steps[st.ptr]!;
    if ("wait" in s) {
      st.ptr++;
      return reply({ type: "wait", ms: s.wait });
    }
    if ("open" in s) {
      st.ptr++;
      return reply(s.open === "home" ? { type: "navigate_home" } : { type: "open_app", app: s.open });
    }
    if ("enter" in s) {
      st.ptr++;
      return reply({ type: "keyboard_enter" });
    }
    if ("back" in s) {
      st.ptr++;
      return reply({ type: "navigate_back" });
    }
    if ("scrollTo" in s) {
      const hit = findLine(lines, s.scrollTo);
      if (!hit) return reply({ type: "scroll", direction: "down", intent: `look for ${s.scrollTo}` });
      st.ptr++;
      return reply({ type: "click", element: hit.index });
    }
    if ("wheel" in s) {
      const w = findLine(lines, s.wheel[0]);
      if (!w) return reply({ type: "wait", ms: 300 });
      const [x1, y1, x2, y2] = w.box as [number, number, number, number];
      const stepH = (y2 - y1) / 3;
      const x = Math.round((x1 + x2) / 2);
      const y = Math.round(y1 + stepH * 1.5);
      // A drag stays on the screen (0-1000): a long turn is made of drags of at most four rows.
      st.wheelLeft ??= s.wheel[1];
      const rows = Math.max(-4, Math.min(4, st.wheelLeft));
      st.wheelLeft -= rows;
      if (st.wheelLeft === 0) {
        st.wheelLeft = null;
        st.ptr++;
      }
      return reply({ type: "drag", from: { x, y }, to: { x, y: Math.round(y - stepH * rows) } });
    }
    const key = "tap" in s ? s.tap : s.type[0];
    const hit = findLine(lines, key);
    if (!hit) return reply({ type: "wait", ms: 300 });
    st.ptr++;
    return reply("tap" in s ? { type: "click", element: hit.index } : { type: "click_then_type", element: hit.index, text: s.type[1] });
  };
}

/** DEBUG_LEARN=1 prints each executor reply with the skills its prompt offered. */
const debugged = (answer: (req: RecordedRequest) => ScriptedReply) => (req: RecordedRequest): ScriptedReply => {
  const out = answer(req);
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

/** What a run without learning sees of the core: no skills, lessons or shortcuts, and it leaves none. */
const unlearned = (cp: ControlPlane): ControlPlane =>
  new Proxy(cp, {
    get(target, key, receiver) {
      if (key === "listSkills" || key === "listLessons" || key === "listShortcuts" || key === "saveShortcuts") return async () => [];
      if (key === "saveSkill" || key === "addLessons") return async () => undefined;
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });

interface Outcome {
  task: string;
  variant: number;
  learning: boolean;
  calls: number;
  steps: number;
  score: number;
  skillSteps: number;
}

let n = 0;
async function runOnce(task: string, variant: number, learning: boolean): Promise<Outcome> {
  const seed = 100 + n++ * 10;
  const phone: VirtualPhone = await startVirtualPhone({ scenario: "home", seed, adbKeys });
  const { goal, task: t } = phone.engine.startTask(task, { seed, variant });
  const params = Object.fromEntries(Object.entries({ ...t.params, ...(variant ? t.variants?.[variant - 1] : {}) }).map(([k, v]) => [k, String(v)]));
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
  console.log(`learning set: ${learnt.length} tasks at their own values; held out: their ${sum(learnt.map(variantsOf))} other variants and ${subpath.length} tasks sharing a sub-path`);

  const first = await inParallel(learnt.map((t) => () => runOnce(t, 0, true)));
  const heldOut = [...learnt.flatMap((t) => Array.from({ length: variantsOf(t) }, (_, i) => [t, i + 1] as const)), ...subpath.map((t) => [t, 0] as const)];
  const withLearning = process.env.LEARN_OFFER_NONE !== "1";
  const held = await inParallel(heldOut.map(([t, v]) => () => runOnce(t, v, withLearning)));
  const base = await inParallel(heldOut.map(([t, v]) => () => runOnce(t, v, false)));
  const validated = await db.skill.count({ where: { workspaceId: workspace.id, status: "validated" } });
  const skills = await db.skill.findMany({ where: { workspaceId: workspace.id }, orderBy: { name: "asc" } });
  for (const s of skills) console.log(`skill "${s.name}" (${s.app.replace("com.phoneloop.", "")}) v${s.version} ${s.status}: ${(s.body as { params?: string[] }).params?.map((p) => `{${p}}`).join(" ") || "no params"}, used ${s.successes} ok, ${s.failures} handed back`);
  console.log(`held out without learning: success=${mean(base.map((o) => (o.score === 1 ? 1 : 0))).toFixed(3)} mean_calls=${mean(base.map((o) => o.calls)).toFixed(2)}; with: mean_calls=${mean(held.map((o) => o.calls)).toFixed(2)}, ${held.filter((o) => o.skillSteps > 0).length} of ${held.length} used a skill`);
  const ratio = (k: "calls" | "steps") => sum(held.map((o) => o[k])) / Math.max(1, sum(base.map((o) => o[k])));
  console.log(`model_calls_ratio=${ratio("calls").toFixed(3)} steps_ratio=${ratio("steps").toFixed(3)} success_first=${mean(first.map((o) => (o.score === 1 ? 1 : 0))).toFixed(3)} success_heldout=${mean(held.map((o) => (o.score === 1 ? 1 : 0))).toFixed(3)} heldout_runs=${held.length} skills_validated=${validated}`);
} finally {
  await core.stop();
}
