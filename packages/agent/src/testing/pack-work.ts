// The virtual phone pack's tasks as a scripted model does them (bench learn, the learning e2e tests): the planner
// makes one todo per piece of work, titled in the pack's own wording with the run's values (a task over two apps
// gets a todo per app; the second one's title is the wording the single-app task of that app uses); the executor
// follows the task's path through the UI (the pack's solutions, taking the task's values), the same way in every
// run — and uses a skill only when the prompt's SKILLS list offers one whose description, read as a template, the
// todo's title fills: it answers `use_skill {skill, params}` with the values the title gives. It never reads the
// database or the skill store; it is told about skills through the prompt alone.
import { fencedRegions } from "../prompts/fence.ts";
import type { ControlPlane } from "../ports.ts";
import type { RecordedRequest, ScriptedReply } from "./scripted-model-server.ts";

const reply = (a: Record<string, unknown>): ScriptedReply => ({ text: JSON.stringify(a) });
const P = (app: string) => `com.phoneloop.${app}`;

// ── the tasks' paths, in the agent's action space, taking the task's values (the pack's own UI solutions) ──
export type PackStep = { open: string } | { tap: string } | { chat: string } | { type: [id: string, text: string] } | { enter: true } | { back: true } | { wait: number } | { scrollTo: string } | { wheel: [id: string, steps: number] };
type Params = Record<string, string>;
const BACK: PackStep = { back: true };
const search = (q: string): PackStep[] => [{ open: P("social") }, { tap: "nav_search" }, { type: ["search_input", q] }, { enter: true }, { wait: 800 }];
const newEvent = (p: Params): PackStep[] => [{ open: P("calendar") }, { tap: "Create new event" }, { type: ["event_title", p.title!] }, { type: ["event_date", p.date!] }, { type: ["event_time", p.time!] }, BACK, { tap: "Save" }];
const newContact = (p: Params): PackStep[] => [{ open: P("contacts") }, { tap: "Create contact" }, { type: ["contact_name", p.name!] }, { type: ["contact_phone_input", p.phone!] }, BACK, { tap: "Save" }];
const text = (name: string, body: string): PackStep[] => [{ open: P("messages") }, { chat: name }, { type: ["compose_message_text", body] }, BACK, { tap: "Send" }];
const newNote = (title: string, body: string): PackStep[] => [{ open: P("notes") }, { tap: "New note" }, { type: ["note_title", title] }, { type: ["note_body", body] }, BACK, { tap: "Save" }];
/** The new-alarm dialog's wheels start at 07:00 and wrap; a minute is reached the short way round. */
const alarm = (p: Params): PackStep[] => {
  const [h, m] = p.time!.split(":").map(Number) as [number, number];
  return [{ open: P("clock") }, { tap: "Add alarm" }, { wheel: ["hour_picker", h - 7] }, { wheel: ["minute_picker", m <= 30 ? m : m - 60] }, { type: ["alarm_label", p.label!] }, BACK, { tap: "OK" }];
};

/** A todo as the scripted planner writes it, with the path that does it. */
export interface PackWork {
  title: string;
  steps: PackStep[];
}
/** The learning set's tasks: one app, one todo titled by the goal itself. */
export const SINGLE_APP_TASKS: Record<string, (p: Params) => PackStep[]> = {
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
export const SUBPATH_TASKS: Record<string, (p: Params) => PackWork[]> = {
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
export function packExecutor(work: PackWork[]) {
  const state = new Map<string, { ptr: number; skillTried: boolean; resumed: boolean; lastStop: number | null; wheelLeft: number | null }>();
  return (req: RecordedRequest): ScriptedReply => {
    const text = req.lastUserText;
    const title = /^TODO: (.*)$/m.exec(text)?.[1]?.trim() ?? "";
    const todo = work.find((w) => w.title === title) ?? work[0]!;
    const st = state.get(todo.title) ?? { ptr: 0, skillTried: false, resumed: false, lastStop: null, wheelLeft: null };
    state.set(todo.title, st);
    const finish = () => reply({ type: "status", status: "complete", summary: "Done." });
    if (/The skill "[^"]+" ran its/.test(text) && !/stopped before/.test(text)) return finish();
    const stopped = /The skill "[^"]+" (stopped before|reached) its step (\d+) of/.exec(text);
    // Handed back for good before its step k (once), or stopped at a step k a person must approve (each time: the
    // skill goes on after it): go on from the k-th acting step of the path (waits are no skill steps).
    if (stopped && (stopped[1] === "reached" ? st.lastStop !== Number(stopped[2]) : !st.resumed)) {
      if (stopped[1] === "reached") st.lastStop = Number(stopped[2]);
      else st.resumed = true;
      const k = Number(stopped[2]) - 1;
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
    if ("chat" in s) {
      // The conversation with a person: their thread when the list has one, else a new chat — Start chat, the name
      // typed into To, then the contact it suggests or "Send to" the name as typed.
      const row = lines.find((l) => l.id !== "recipient" && (l.text === s.chat || l.text.startsWith(`${s.chat} `)));
      const sendTo = lines.find((l) => l.id === "start_with_number");
      const to = lines.find((l) => l.id === "recipient");
      const start = lines.find((l) => l.id === "start_chat");
      if (row || (sendTo && to?.text === s.chat)) {
        st.ptr++;
        return reply({ type: "click", element: (row ?? sendTo)!.index });
      }
      if (to) return reply({ type: "click_then_type", element: to.index, text: s.chat });
      if (start) return reply({ type: "click", element: start.index, intent: `start a chat with ${s.chat}` });
      return reply({ type: "wait", ms: 300 });
    }
    const key = "tap" in s ? s.tap : s.type[0];
    const hit = findLine(lines, key);
    if (!hit) return reply({ type: "wait", ms: 300 });
    st.ptr++;
    return reply("tap" in s ? { type: "click", element: hit.index } : { type: "click_then_type", element: hit.index, text: s.type[1] });
  };
}


/** What a run without learning sees of the core: no skills, lessons or shortcuts, and it leaves none. */
export const unlearned = (cp: ControlPlane): ControlPlane =>
  new Proxy(cp, {
    get(target, key, receiver) {
      if (key === "listSkills" || key === "listLessons" || key === "listShortcuts" || key === "saveShortcuts") return async () => [];
      if (key === "saveSkill" || key === "addLessons") return async () => undefined;
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });

/** A pack task's todos as the scripted planner writes them, for the values the phone's task was started with. */
export function packWork(task: string, goal: string, params: Record<string, unknown>): PackWork[] {
  const p = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
  const single = SINGLE_APP_TASKS[task];
  if (single) return [{ title: goal, steps: single(p) }];
  const sub = SUBPATH_TASKS[task];
  if (!sub) throw new Error(`The scripted model has no path for the task "${task}"; add it to SINGLE_APP_TASKS or SUBPATH_TASKS.`);
  return sub(p);
}
