// Every built-in task can be completed through the UI, the way an agent would, and then scores 1.
import { describe, expect, it } from "vitest";
import { PhoneEngine } from "../engine.ts";
import { ManualClock, center, find, has, tapOn } from "../testing.ts";

type Step =
  | { launch: string; screen?: string }
  | { tap: string }
  | { type: [field: string, text: string] }
  | { key: number }
  | { wait: number }
  | { scrollTo: string }
  | { swipeWheel: [wheel: string, steps: number] };

const DISMISS = ["Later", "Not now", "No thanks", "Don't allow"];

function dismissPopups(engine: PhoneEngine): void {
  for (let i = 0; i < 5 && engine.runtime.deviceInfo().popup; i++) {
    const label = DISMISS.find((t) => has(engine, t));
    if (!label) throw new Error(`no way to dismiss popup ${String(engine.runtime.deviceInfo().popup)}`);
    tapOn(engine, label);
  }
}

function run(engine: PhoneEngine, clock: ManualClock, steps: Step[]): void {
  for (const s of steps) {
    dismissPopups(engine);
    if ("launch" in s) engine.launch(s.launch, s.screen);
    else if ("tap" in s) tapOn(engine, s.tap);
    else if ("type" in s) {
      engine.tap(...center(find(engine, s.type[0])));
      engine.typeText(s.type[1]);
    } else if ("key" in s) engine.key(s.key);
    else if ("wait" in s) clock.advance(s.wait);
    else if ("scrollTo" in s) {
      for (let i = 0; i < 10 && !has(engine, s.scrollTo); i++) engine.swipe(540, 1700, 540, 900, 400);
      tapOn(engine, s.scrollTo);
    } else if ("swipeWheel" in s) {
      const b = find(engine, s.swipeWheel[0]).bounds;
      const step = (b[3] - b[1]) / 3;
      const x = (b[0] + b[2]) / 2;
      const y = b[1] + step * 1.5;
      engine.swipe(x, y, x, y - step * s.swipeWheel[1], 300);
    }
  }
  dismissPopups(engine);
}

const search = (q: string): Step[] => [{ launch: "social", screen: "search" }, { type: ["search_input", q] }, { key: 66 }, { wait: 700 }];
const BACK: Step = { key: 4 };
type Params = Record<string, string | undefined>;
const newEvent = (p: Params): Step[] => [{ launch: "calendar" }, { tap: "Create new event" }, { type: ["event_title", p.title!] }, { type: ["event_date", p.date!] }, { type: ["event_time", p.time!] }, BACK, { tap: "Save" }];
const newContact = (p: Params): Step[] => [{ launch: "contacts" }, { tap: "Create contact" }, { type: ["contact_name", p.name!] }, { type: ["contact_phone_input", p.phone!] }, BACK, { tap: "Save" }];
const text = (p: Params): Step[] => [{ launch: "messages" }, { tap: p.name! }, { type: ["compose_message_text", p.text!] }, BACK, { tap: "Send" }];
const newNote = (p: Params): Step[] => [{ launch: "notes" }, { tap: "New note" }, { type: ["note_title", p.title!] }, { type: ["note_body", p.body!] }, BACK, { tap: "Save" }];
/** The new-alarm dialog's wheels start at 07:00 and wrap; a minute is reached the short way round. */
const alarmWheels = (time: string): Step[] => {
  const [h, m] = time.split(":").map(Number) as [number, number];
  return [{ swipeWheel: ["hour_picker", h - 7] }, { swipeWheel: ["minute_picker", m <= 30 ? m : m - 60] }];
};

type Solution = { steps: Step[]; answer?: string };
/** Each task's way through the UI; a task with params takes the params it was started with (its own or a variant's). */
const SOLUTIONS: Record<string, Solution | ((p: Params) => Solution)> = {
  social_collect_views: { steps: [...search("mobile AI agents"), { tap: "Dr. Lin Zhou" }, BACK, { tap: "Kate Flynn" }, BACK], answer: "Views: on-device for privacy; reliability against popups; token cost." },
  social_like_cost_post: (p) => ({ steps: [...search("mobile AI agents"), { scrollTo: p.author! }, { tap: "like" }] }),
  social_search_chinese: (p) => ({ steps: [...search(p.query!), { tap: "Dr. Lin Zhou" }, { tap: "save" }] }),
  social_login: { steps: [{ launch: "social", screen: "profile" }, { tap: "profile_login" }, { type: ["username", "agent_tester"] }, { type: ["password", "hunter22"] }, BACK, { tap: "login_button" }] },
  social_sign_in_profile: { steps: [{ launch: "social", screen: "profile" }, { tap: "profile_login" }, { type: ["username", "agent_tester"] }, { type: ["password", "a person types it"] }, BACK, { tap: "login_button" }] },
  settings_wifi_off: { steps: [{ launch: "settings" }, { tap: "Network & internet" }, { tap: "Wi-Fi" }] },
  settings_bluetooth_on: { steps: [{ launch: "settings" }, { tap: "Connected devices" }, { tap: "Use Bluetooth" }] },
  settings_font_largest: { steps: [{ launch: "settings" }, { tap: "Display" }, { tap: "Font size" }, { tap: "Largest" }] },
  settings_connect_cafe: (p) => ({ steps: [{ launch: "settings" }, { tap: "Network & internet" }, { tap: "Internet" }, { tap: p.ssid! }] }),
  settings_bluetooth_from_home: { steps: [{ tap: "Settings" }, { tap: "Connected devices" }, { tap: "Use Bluetooth" }, { key: 3 }] },
  calendar_add_event: (p) => ({ steps: newEvent(p) }),
  calendar_chinese_event: (p) => ({ steps: newEvent(p) }),
  contacts_add: (p) => ({ steps: newContact(p) }),
  contacts_add_chinese: (p) => ({ steps: newContact(p) }),
  messages_send: (p) => ({ steps: text(p) }),
  messages_send_chinese: (p) => ({ steps: text(p) }),
  clock_set_alarm: (p) => ({ steps: [{ launch: "clock" }, { tap: "Add alarm" }, ...alarmWheels(p.time!), { type: ["alarm_label", p.label!] }, BACK, { tap: "OK" }] }),
  shop_add_to_cart: (p) => ({ steps: [{ launch: "shop" }, { scrollTo: p.a! }, { tap: "Add to cart" }, BACK, { scrollTo: p.b! }, { tap: "Add to cart" }] }),
  shop_checkout: (p) => ({ steps: [{ launch: "shop" }, { scrollTo: p.item! }, { tap: "Buy now" }, { type: ["shipping_address", p.address!] }, BACK, { tap: "Pay now" }] }),
  mail_meeting_time: { steps: [{ launch: "mail" }, { tap: "Maria Garcia · Project kickoff meeting" }], answer: "2026-12-03 at 14:00" },
  notes_create: (p) => ({ steps: newNote(p) }),
  notes_chinese: (p) => ({ steps: newNote(p) }),
  mail_to_calendar: {
    steps: [{ launch: "mail" }, { tap: "Maria Garcia · Project kickoff meeting" }, { launch: "calendar" }, { tap: "Create new event" }, { type: ["event_title", "Project kickoff"] }, { type: ["event_date", "2026-12-03"] }, { type: ["event_time", "14:00"] }, { type: ["event_location", "Harbor Room"] }, BACK, { tap: "Save" }],
  },
  shop_to_messages: { steps: [{ launch: "shop" }, { tap: "Wireless earbuds" }, { launch: "messages" }, { tap: "Alice Chen" }, { type: ["compose_message_text", "The earbuds cost $59.00"] }, BACK, { tap: "Send" }] },
  contacts_to_messages: { steps: [{ launch: "contacts" }, { tap: "Maria Garcia" }, { launch: "messages" }, { tap: "Bob Miller" }, { type: ["compose_message_text", "Maria: +34 600 123 456"] }, BACK, { tap: "Send" }] },
  social_to_notes: { steps: [...search("mobile AI agents"), { tap: "Dr. Lin Zhou" }, { launch: "notes" }, { tap: "New note" }, { type: ["note_title", "Agent views"] }, { type: ["note_body", "On-device first: privacy and latency beat model size"] }, BACK, { tap: "Save" }] },
  calendar_to_messages: { steps: [{ launch: "calendar" }, { tap: "Team sync" }, { launch: "messages" }, { tap: "Alice Chen" }, { type: ["compose_message_text", "Team sync is on 2026-12-01 at 10:00"] }, BACK, { tap: "Send" }] },
  mail_to_contacts: { steps: [{ launch: "mail" }, { tap: "New Supplier Ltd · Introduction" }, { launch: "contacts" }, { tap: "Create contact" }, { type: ["contact_name", "Jun Wei"] }, { type: ["contact_phone_input", "+86 21 5555 0188"] }, BACK, { tap: "Save" }] },
  calendar_to_clock: { steps: [{ launch: "calendar" }, { tap: "Dentist" }, { launch: "clock" }, { tap: "Add alarm" }, { swipeWheel: ["minute_picker", 30] }, { tap: "OK" }] },
  notes_to_mail: { steps: [{ launch: "notes" }, { tap: "Packing list" }, { tap: "Share" }, { type: ["to", "alice@example.com"] }, BACK, { tap: "Send" }] },
  mail_chinese_reply_calendar: {
    steps: [{ launch: "mail" }, { tap: "王芳 · 周五聚餐" }, { tap: "Reply" }, { type: ["body", "我会参加"] }, BACK, { tap: "Send" }, { launch: "calendar" }, { tap: "Create new event" }, { type: ["event_title", "周五聚餐"] }, { type: ["event_date", "2026-12-04"] }, { type: ["event_time", "18:30"] }, BACK, { tap: "Save" }],
  },
};

describe("built-in tasks", () => {
  const engine = new PhoneEngine({ scenario: "social", seed: 1 });
  it("has a scripted solution for every task", () => {
    expect(Object.keys(SOLUTIONS).sort()).toEqual(engine.tasks().map((t) => t.id).sort());
  });
  for (const task of engine.tasks()) {
    for (let variant = 0; variant <= task.variants.length; variant++) {
      const name = variant === 0 ? task.id : `${task.id}@${variant}`;
      it(`${name} can be completed through the UI and scores 1`, () => {
        const clock = new ManualClock();
        const phone = new PhoneEngine({ scenario: "social", seed: 1, clock });
        const started = phone.startTask(task.id, { variant });
        const entry = SOLUTIONS[task.id]!;
        const solution = typeof entry === "function" ? entry(started.params as Params) : entry;
        run(phone, clock, solution.steps);
        const r = phone.evaluate(task.id, { answer: solution.answer });
        expect(r.reason).toBe(`all ${r.checks.length} checks passed`);
        expect(r.score).toBe(1);
      });
    }
  }

  it("a variant's values, not the task's own, are what its evaluator asks for", () => {
    const clock = new ManualClock();
    const phone = new PhoneEngine({ scenario: "social", seed: 1, clock });
    const started = phone.startTask("notes_create", { variant: 1 });
    expect(started.goal).toBe("Create a note titled 'Weekend plans' containing 'hike, laundry, call mom'.");
    run(phone, clock, newNote(phone.task("notes_create").params as Params));
    expect(phone.evaluate("notes_create").score).toBe(0);
    run(phone, clock, newNote(started.params as Params));
    expect(phone.evaluate("notes_create").score).toBe(1);
  });

  it("values given at the start, in place of a variant's, are what the goal says and its evaluator asks for; a key the task lacks is refused", () => {
    const clock = new ManualClock();
    const phone = new PhoneEngine({ scenario: "social", seed: 1, clock });
    const values = { title: "Sealed", body: "given at the start" };
    const started = phone.startTask("notes_create", { params: values });
    expect(started.goal).toBe("Create a note titled 'Sealed' containing 'given at the start'.");
    run(phone, clock, newNote(values as Params));
    expect(phone.evaluate("notes_create").score).toBe(1);
    expect(() => phone.startTask("notes_create", { params: { titel: "x" } })).toThrow(/no param "titel": its params are title, body/);
  });

  it("every variant gives the same params as its task, with other values", () => {
    for (const t of engine.tasks()) {
      for (const v of t.variants) {
        expect(Object.keys(v).sort(), t.id).toEqual(Object.keys(t.params).sort());
        expect(v, t.id).not.toEqual(t.params);
      }
    }
    expect(() => engine.startTask("notes_create", { variant: 3 })).toThrow(/no variant 3: it has variants 0 \(its own params\) to 2/);
  });
});
