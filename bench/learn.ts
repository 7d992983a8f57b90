// `npm run bench -- learn [task-id …]`: every task of the virtual phone's pack, run twice by the headless agent
// (packages/cli's composition root: the API over a durable Postgres through packages/client, a virtual phone over
// real ADB/TCP). The executor is scripted: it follows the task's path through the UI but explores first (it scrolls
// around before it starts); the planner and summarizer are scripted too (one todo, lessons about the detour).
// The second run, on another fresh phone, gets the skills (the first run's candidate, offered unverified: the
// second run's use validates it when its todo is accepted), shortcuts and lessons the first left. Steps = the runs' step rows; tokens = the models' input + output tokens.
// Last line: first_steps=<mean> second_steps=<mean> step_ratio=<second/first> token_ratio=<second/first>.
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { countTextTokens, fencedRegions, skillName, type AgentEvent } from "@phoneloop/agent";
import { startScriptedModelServer, planOf, type RecordedRequest, type ScriptedReply } from "@phoneloop/agent/testing";
import { runHeadless } from "@phoneloop/cli";
import { createApiClient, createControlPlane } from "@phoneloop/client";
import { resolveGate } from "@phoneloop/state";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { startBenchCore } from "./support/stack.ts";

const reply = (a: Record<string, unknown>): ScriptedReply => ({ text: JSON.stringify(a) });
const P = (app: string) => `com.phoneloop.${app}`;

// ── the tasks' paths, in the agent's action space (the pack's own UI solutions, packages/virtual-phone/src/pack/pack.test.ts) ──
type Step = { open: string } | { tap: string } | { type: [id: string, text: string] } | { enter: true } | { back: true } | { wait: number } | { scrollTo: string } | { wheel: [id: string, steps: number] };
const BACK: Step = { back: true };
const search = (q: string): Step[] => [{ open: P("social") }, { tap: "nav_search" }, { type: ["search_input", q] }, { enter: true }, { wait: 800 }];
const PATHS: Record<string, { steps: Step[]; answer?: string }> = {
  social_collect_views: { steps: [...search("mobile AI agents"), { tap: "Dr. Lin Zhou" }, BACK, { tap: "Kate Flynn" }, BACK], answer: "Views: on-device for privacy; reliability against popups; token cost." },
  social_like_cost_post: { steps: [...search("mobile AI agents"), { scrollTo: "陈思远" }, { tap: "like" }] },
  social_search_chinese: { steps: [...search("手机智能体"), { tap: "Dr. Lin Zhou" }, { tap: "save" }] },
  social_login: { steps: [{ open: P("social") }, { tap: "nav_profile" }, { tap: "profile_login" }, { type: ["username", "agent_tester"] }, { type: ["password", "hunter22"] }, BACK, { tap: "login_button" }] },
  settings_wifi_off: { steps: [{ open: "com.android.settings" }, { tap: "Network & internet" }, { tap: "Wi-Fi" }] },
  settings_bluetooth_on: { steps: [{ open: "com.android.settings" }, { tap: "Connected devices" }, { tap: "Use Bluetooth" }] },
  settings_font_largest: { steps: [{ open: "com.android.settings" }, { tap: "Display" }, { tap: "Font size" }, { tap: "Largest" }] },
  settings_connect_cafe: { steps: [{ open: "com.android.settings" }, { tap: "Network & internet" }, { tap: "Internet" }, { tap: "Cafe Guest" }] },
  settings_bluetooth_from_home: { steps: [{ tap: "Settings" }, { tap: "Connected devices" }, { tap: "Use Bluetooth" }, { open: "home" }] },
  calendar_add_event: { steps: [{ open: P("calendar") }, { tap: "Create new event" }, { type: ["event_title", "Design review"] }, { type: ["event_date", "2026-12-04"] }, { type: ["event_time", "15:00"] }, BACK, { tap: "Save" }] },
  calendar_chinese_event: { steps: [{ open: P("calendar") }, { tap: "Create new event" }, { type: ["event_title", "团队周会"] }, { type: ["event_date", "2026-12-07"] }, { type: ["event_time", "09:30"] }, BACK, { tap: "Save" }] },
  contacts_add: { steps: [{ open: P("contacts") }, { tap: "Create contact" }, { type: ["contact_name", "Sam Lee"] }, { type: ["contact_phone_input", "+1 650 555 0142"] }, BACK, { tap: "Save" }] },
  contacts_add_chinese: { steps: [{ open: P("contacts") }, { tap: "Create contact" }, { type: ["contact_name", "张伟"] }, { type: ["contact_phone_input", "13800138000"] }, BACK, { tap: "Save" }] },
  messages_send: { steps: [{ open: P("messages") }, { tap: "Bob Miller" }, { type: ["compose_message_text", "Yes, the charger arrives tomorrow."] }, BACK, { tap: "Send" }] },
  messages_send_chinese: { steps: [{ open: P("messages") }, { tap: "李雷" }, { type: ["compose_message_text", "明天中午十二点见，不见不散"] }, BACK, { tap: "Send" }] },
  clock_set_alarm: { steps: [{ open: P("clock") }, { tap: "Add alarm" }, { wheel: ["hour_picker", -1] }, { wheel: ["minute_picker", -15] }, { type: ["alarm_label", "Gym"] }, BACK, { tap: "OK" }] },
  shop_add_to_cart: { steps: [{ open: P("shop") }, { tap: "USB-C charger 65W" }, { tap: "Add to cart" }, BACK, { tap: "Phone case, blue" }, { tap: "Add to cart" }] },
  shop_checkout: { steps: [{ open: P("shop") }, { scrollTo: "Coffee beans 1kg" }, { tap: "Buy now" }, { type: ["shipping_address", "1 Market St, San Francisco"] }, BACK, { tap: "Pay now" }] },
  mail_meeting_time: { steps: [{ open: P("mail") }, { tap: "Maria Garcia · Project kickoff meeting" }], answer: "2026-12-03 at 14:00" },
  notes_create: { steps: [{ open: P("notes") }, { tap: "New note" }, { type: ["note_title", "Groceries"] }, { type: ["note_body", "milk, eggs, bread"] }, BACK, { tap: "Save" }] },
  notes_chinese: { steps: [{ open: P("notes") }, { tap: "New note" }, { type: ["note_title", "购物清单"] }, { type: ["note_body", "牛奶、鸡蛋、面包"] }, BACK, { tap: "Save" }] },
  mail_to_calendar: { steps: [{ open: P("mail") }, { tap: "Maria Garcia · Project kickoff meeting" }, { open: P("calendar") }, { tap: "Create new event" }, { type: ["event_title", "Project kickoff"] }, { type: ["event_date", "2026-12-03"] }, { type: ["event_time", "14:00"] }, { type: ["event_location", "Harbor Room"] }, BACK, { tap: "Save" }] },
  shop_to_messages: { steps: [{ open: P("shop") }, { tap: "Wireless earbuds" }, { open: P("messages") }, { tap: "Alice Chen" }, { type: ["compose_message_text", "The earbuds cost $59.00"] }, BACK, { tap: "Send" }] },
  contacts_to_messages: { steps: [{ open: P("contacts") }, { tap: "Maria Garcia" }, { open: P("messages") }, { tap: "Bob Miller" }, { type: ["compose_message_text", "Maria: +34 600 123 456"] }, BACK, { tap: "Send" }] },
  social_to_notes: { steps: [...search("mobile AI agents"), { tap: "Dr. Lin Zhou" }, { open: P("notes") }, { tap: "New note" }, { type: ["note_title", "Agent views"] }, { type: ["note_body", "On-device first: privacy and latency beat model size"] }, BACK, { tap: "Save" }] },
  calendar_to_messages: { steps: [{ open: P("calendar") }, { tap: "Team sync" }, { open: P("messages") }, { tap: "Alice Chen" }, { type: ["compose_message_text", "Team sync is on 2026-12-01 at 10:00"] }, BACK, { tap: "Send" }] },
  mail_to_contacts: { steps: [{ open: P("mail") }, { tap: "New Supplier Ltd · Introduction" }, { open: P("contacts") }, { tap: "Create contact" }, { type: ["contact_name", "Jun Wei"] }, { type: ["contact_phone_input", "+86 21 5555 0188"] }, BACK, { tap: "Save" }] },
  calendar_to_clock: { steps: [{ open: P("calendar") }, { tap: "Dentist" }, { open: P("clock") }, { tap: "Add alarm" }, { wheel: ["minute_picker", 30] }, { tap: "OK" }] },
  notes_to_mail: { steps: [{ open: P("notes") }, { tap: "Packing list" }, { tap: "Share" }, { type: ["to", "alice@example.com"] }, BACK, { tap: "Send" }] },
  mail_chinese_reply_calendar: {
    steps: [{ open: P("mail") }, { tap: "王芳 · 周五聚餐" }, { tap: "Reply" }, { type: ["body", "我会参加"] }, BACK, { tap: "Send" }, { open: P("calendar") }, { tap: "Create new event" }, { type: ["event_title", "周五聚餐"] }, { type: ["event_date", "2026-12-04"] }, { type: ["event_time", "18:30"] }, BACK, { tap: "Save" }],
  },
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

/**
 * The scripted executor of one task, kept across its two runs. It follows the task's path; before the path's
 * second step it explores (scrolls down and up twice: a detour that changes nothing). Offered a skill, it runs it;
 * when the skill hands back before its step k, it goes on from the path step that produced the first run's k-th
 * action.
 */
function follower(path: { steps: Step[]; answer?: string }) {
  let ptr = 0;
  let explored = 0;
  let typedWaiting = false;
  let wheelLeft: number | null = null;
  let run = 0;
  /** The path step each device action of the first run served (popup dismissals included), detours left out. */
  const served: number[] = [];
  let skillTried = false;
  const finish = () => (path.answer ? reply({ type: "answer", text: path.answer }) : reply({ type: "status", status: "complete", summary: "Done." }));
  const act = (a: Record<string, unknown>, serves = ptr) => {
    if (run === 1) served.push(serves);
    return reply(a);
  };
  return {
    nextRun() {
      run++;
      ptr = 0;
      explored = 0;
      skillTried = false;
      typedWaiting = false;
      wheelLeft = null;
    },
    reply(req: RecordedRequest): ScriptedReply {
      const text = req.lastUserText;
      if (/The skill "[^"]+" ran its/.test(text)) return finish();
      const stopped = /The skill "[^"]+" (?:stopped before|reached) its step (\d+) of/.exec(text);
      if (stopped && !typedWaiting) {
        typedWaiting = true; // handled once: go on from the path step the first run's matching action served
        const k = Number(stopped[1]) - 1;
        ptr = served[k] ?? served.at(-1) ?? 0;
        explored = 4;
      }
      // Of the skills offered, the one made for this goal (a skill is named after the todo it did).
      const offered = /SKILLS \(/.test(text) ? [...(fencedRegions(text).find((r) => /^- "/.test(r.trim())) ?? "").matchAll(/^- "([^"]+)"/gm)].map((m) => m[1]!) : [];
      const goal = /GOAL: (.*)/.exec(text)?.[1] ?? "";
      const skill = offered.find((name) => name === skillName(goal));
      if (skill && !skillTried && run > 1) {
        skillTried = true;
        return reply({ type: "use_skill", skill, intent: "replay the path that worked before" });
      }
      const lines = screenLines(req);
      const dismiss = lines.find((l) => DISMISS.includes(l.text));
      if (dismiss) return act({ type: "click", element: dismiss.index, intent: "dismiss the popup" });
      if (ptr === 1 && explored < 4) {
        explored++;
        return reply({ type: "scroll", direction: explored % 2 ? "down" : "up", intent: "look around first" });
      }
      if (ptr >= path.steps.length) return finish();
      const s = path.steps[ptr]!;
      const here = ptr;
      if ("wait" in s) {
        ptr++;
        return reply({ type: "wait", ms: s.wait });
      }
      if ("open" in s) {
        ptr++;
        return act(s.open === "home" ? { type: "navigate_home" } : { type: "open_app", app: s.open }, here);
      }
      if ("enter" in s) {
        ptr++;
        return act({ type: "keyboard_enter" }, here);
      }
      if ("back" in s) {
        ptr++;
        return act({ type: "navigate_back" }, here);
      }
      if ("scrollTo" in s) {
        const hit = findLine(lines, s.scrollTo);
        if (!hit) return act({ type: "scroll", direction: "down", intent: `look for ${s.scrollTo}` }, here);
        ptr++;
        return act({ type: "click", element: hit.index }, here);
      }
      if ("wheel" in s) {
        const w = findLine(lines, s.wheel[0]);
        if (!w) return reply({ type: "wait", ms: 300 });
        const [x1, y1, x2, y2] = w.box as [number, number, number, number];
        const stepH = (y2 - y1) / 3;
        const x = Math.round((x1 + x2) / 2);
        const y = Math.round(y1 + stepH * 1.5);
        // A drag stays on the screen (0-1000): a long turn is made of drags of at most four rows.
        wheelLeft ??= s.wheel[1];
        const rows = Math.max(-4, Math.min(4, wheelLeft));
        wheelLeft -= rows;
        if (wheelLeft === 0) {
          wheelLeft = null;
          ptr++;
        }
        return act({ type: "drag", from: { x, y }, to: { x, y: Math.round(y - stepH * rows) } }, here);
      }
      const key = "tap" in s ? s.tap : s.type[0];
      const hit = findLine(lines, key);
      if (!hit) return reply({ type: "wait", ms: 300 });
      ptr++;
      return act("tap" in s ? { type: "click", element: hit.index } : { type: "click_then_type", element: hit.index, text: s.type[1] }, here);
    },
  };
}

const core = await startBenchCore("learn", { fast: true });
const { db, workspace, admin, apiUrl, issueToken } = core;
// A person approves the gates the runs open (sending, paying): the person's side is not what is measured.
const approve = (gateId: string) => void resolveGate(db, { gateId, userId: admin.id, decision: "approve", rationale: "benchmark" }).catch(() => undefined);
const credentialStore = new MemoryCredentialStore("bench@phoneloop");
const benchKey = await credentialStore.generateKey();
const adbKeys = [adbPublicKeyLine(benchKey.buffer, benchKey.name ?? credentialStore.name)];
countTextTokens("warm up the tokenizer once per process");

async function freshPhone(taskId: string, seed: number): Promise<{ phone: VirtualPhone; device: AdbDevice; goal: string }> {
  const phone = await startVirtualPhone({ scenario: "home", seed, adbKeys });
  const { goal } = phone.engine.startTask(taskId);
  const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
  return { phone, device, goal };
}
const close = async (p: { phone: VirtualPhone; device: AdbDevice }) => {
  await p.device.close().catch(() => undefined);
  await p.phone.stop();
};

const only = process.argv.slice(2);
/** How many tasks run at once. */
const PARALLEL = Number(process.env.LEARN_PARALLEL ?? 4);
const tasks = Object.keys(PATHS).filter((t) => !only.length || only.includes(t));
const rows: { task: string; steps: [number, number]; tokens: [number, number]; scores: [number, number]; skill: string }[] = [];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** One task, twice: the first run, then the second, offered what the first left. */
async function benchTask(task: string, n: number) {
  // Each task's worker acts with its own agent token (a token is bound to the agent it first registers).
  const agentToken = await issueToken(`bench ${task}`);
  const controlPlane = createControlPlane(createApiClient({ apiUrl, auth: { kind: "token", token: agentToken } }), { apiUrl });
    const script = follower(PATHS[task]!);
    const lessons = JSON.stringify({
      findings: [],
      conclusion: "Done.",
      lessons: [
        { kind: "failed", text: "Scrolling around the first screen before starting was a detour." },
        { kind: "worked", text: "Following the app's own path straight to the form worked." },
      ],
    });
    const server = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner", replies: [(r: RecordedRequest) => planOf([{ id: "t1", title: /GOAL: (.*)/.exec(r.lastUserText)?.[1] ?? task }]) as ScriptedReply], repeatLast: true },
        { match: (r) => r.model === "summarizer", replies: [{ text: lessons }], repeatLast: true },
        {
          match: (r) => r.model === "executor",
          replies: [
            (r: RecordedRequest) => {
              const out = script.reply(r);
              if (process.env.DEBUG_LEARN) console.log(`  ${task} ← ${"text" in out ? out.text : ""} | ${screenLines(r).map((l) => l.id || l.text).slice(0, 12).join(" · ")}${/SKILLS \(/.test(r.lastUserText) ? ` | skills: ${(fencedRegions(r.lastUserText).find((x) => /^- "/.test(x.trim())) ?? "").replace(/\n/g, " ").slice(0, 300)}` : ""}`);
              return out;
            },
          ],
          repeatLast: true,
        },
      ],
    });
    const models = { executor: { baseURL: server.baseURL, model: "executor" }, planner: { baseURL: server.baseURL, model: "planner" }, summarizer: { baseURL: server.baseURL, model: "summarizer" } };
    const onEvent = (e: AgentEvent) => {
      if (e.type === "gate") approve(e.gateId);
      if (process.env.DEBUG_LEARN && e.type === "anomaly") console.log(`  ${task} anomaly ${e.kind}: ${e.message}`);
    };
    const once = async (seed: number) => {
      script.nextRun();
      const p = await freshPhone(task, seed);
      try {
        const out = await runHeadless({ apiUrl, agentToken, agentId: `agent_bench_${n}`, device: p.device, models, goal: p.goal, agentName: "bench", config: { maxStepsPerTodo: 60, maxStepsPerRun: 80 }, onEvent });
        const steps = await db.step.count({ where: { runId: out.runId } });
        const answer = [out.report.conclusion, ...out.report.findings].join("\n");
        const scored = p.phone.engine.evaluate(task, { answer });
        if (process.env.DEBUG_LEARN) {
          console.log(`  ${task} scored ${scored.score}: ${scored.reason}`);
          for (const st of await db.step.findMany({ where: { runId: out.runId }, orderBy: { index: "asc" } })) console.log(`  ${task} step ${st.index}: ${JSON.stringify(st.action).slice(0, 160)} → ${JSON.stringify((st.outcome as { outcome?: unknown } | null)?.outcome ?? null).slice(0, 300)}`);
        }
        return { steps, tokens: out.report.totals.inputTokens + out.report.totals.outputTokens, score: scored.score, runId: out.runId };
      } finally {
        await close(p);
      }
    };
    try {
      const seed = 100 + n * 10;
      const first = await once(seed);
      const second = await once(seed + 2);
      // The first run's skill is a candidate; the second run's use of it validates it when its todo is accepted.
      const left = (await controlPlane.listSkills({})).filter((s) => s.runId === first.runId || s.runId === second.runId);
      const skillNote = left.length ? left.map((s) => `skill ${s.status} (${(s.body as { steps: unknown[] }).steps.length} steps, used ${s.successes} ok, ${s.failures} handed back)`).join("; ") : "no skill";
      rows.push({ task, steps: [first.steps, second.steps], tokens: [first.tokens, second.tokens], scores: [first.score, second.score], skill: skillNote });
      console.log(`${task}: steps ${first.steps} → ${second.steps}, tokens ${first.tokens} → ${second.tokens}, score ${first.score} → ${second.score}; ${skillNote}`);
    } finally {
      await server.stop();
    }
}

try {
  // Tasks run a few at a time: a run mostly waits on its phone, and each has its own phones, models and agent.
  const queue = tasks.map((t, n) => [t, n] as const);
  const workers = Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await benchTask(next[0], next[1]);
  });
  await Promise.all(workers);
  rows.sort((a, b) => tasks.indexOf(a.task) - tasks.indexOf(b.task));
  const shortcuts = await db.shortcut.findMany({ where: { workspaceId: workspace.id, app: "com.android.settings" } });
  const lessonsKept = await db.lesson.count({ where: { workspaceId: workspace.id } });
  console.log(`tasks=${rows.length} first_success=${mean(rows.map((r) => r.scores[0]))} second_success=${mean(rows.map((r) => r.scores[1]))} lessons=${lessonsKept} settings_shortcuts=${shortcuts.map((s) => `${s.uri}:${s.status}`).join(",") || "none"}`);
  const f = mean(rows.map((r) => r.steps[0]));
  const s = mean(rows.map((r) => r.steps[1]));
  const ft = mean(rows.map((r) => r.tokens[0]));
  const st = mean(rows.map((r) => r.tokens[1]));
  console.log(`first_steps=${f.toFixed(2)} second_steps=${s.toFixed(2)} step_ratio=${(s / f).toFixed(3)} token_ratio=${(st / ft).toFixed(3)}`);
} finally {
  await core.stop();
}
