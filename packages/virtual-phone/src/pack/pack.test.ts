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

const SOLUTIONS: Record<string, { steps: Step[]; answer?: string }> = {
  social_collect_views: { steps: [...search("mobile AI agents"), { tap: "Dr. Lin Zhou" }, BACK, { tap: "Kate Flynn" }, BACK], answer: "Views: on-device for privacy; reliability against popups; token cost." },
  social_like_cost_post: { steps: [...search("mobile AI agents"), { scrollTo: "陈思远" }, { tap: "like" }] },
  social_search_chinese: { steps: [...search("手机智能体"), { tap: "Dr. Lin Zhou" }, { tap: "save" }] },
  social_login: { steps: [{ launch: "social", screen: "profile" }, { tap: "profile_login" }, { type: ["username", "agent_tester"] }, { type: ["password", "hunter22"] }, BACK, { tap: "login_button" }] },
  social_sign_in_profile: { steps: [{ launch: "social", screen: "profile" }, { tap: "profile_login" }, { type: ["username", "agent_tester"] }, { type: ["password", "a person types it"] }, BACK, { tap: "login_button" }] },
  settings_wifi_off: { steps: [{ launch: "settings" }, { tap: "Network & internet" }, { tap: "Wi-Fi" }] },
  settings_bluetooth_on: { steps: [{ launch: "settings" }, { tap: "Connected devices" }, { tap: "Use Bluetooth" }] },
  settings_font_largest: { steps: [{ launch: "settings" }, { tap: "Display" }, { tap: "Font size" }, { tap: "Largest" }] },
  settings_connect_cafe: { steps: [{ launch: "settings" }, { tap: "Network & internet" }, { tap: "Internet" }, { tap: "Cafe Guest" }] },
  settings_bluetooth_from_home: { steps: [{ tap: "Settings" }, { tap: "Connected devices" }, { tap: "Use Bluetooth" }, { key: 3 }] },
  calendar_add_event: { steps: [{ launch: "calendar" }, { tap: "Create new event" }, { type: ["event_title", "Design review"] }, { type: ["event_date", "2026-12-04"] }, { type: ["event_time", "15:00"] }, BACK, { tap: "Save" }] },
  calendar_chinese_event: { steps: [{ launch: "calendar" }, { tap: "Create new event" }, { type: ["event_title", "团队周会"] }, { type: ["event_date", "2026-12-07"] }, { type: ["event_time", "09:30"] }, BACK, { tap: "Save" }] },
  contacts_add: { steps: [{ launch: "contacts" }, { tap: "Create contact" }, { type: ["contact_name", "Sam Lee"] }, { type: ["contact_phone_input", "+1 650 555 0142"] }, BACK, { tap: "Save" }] },
  contacts_add_chinese: { steps: [{ launch: "contacts" }, { tap: "Create contact" }, { type: ["contact_name", "张伟"] }, { type: ["contact_phone_input", "13800138000"] }, BACK, { tap: "Save" }] },
  messages_send: { steps: [{ launch: "messages" }, { tap: "Bob Miller" }, { type: ["compose_message_text", "Yes, the charger arrives tomorrow."] }, BACK, { tap: "Send" }] },
  messages_send_chinese: { steps: [{ launch: "messages" }, { tap: "李雷" }, { type: ["compose_message_text", "明天中午十二点见，不见不散"] }, BACK, { tap: "Send" }] },
  clock_set_alarm: { steps: [{ launch: "clock" }, { tap: "Add alarm" }, { swipeWheel: ["hour_picker", -1] }, { swipeWheel: ["minute_picker", -15] }, { type: ["alarm_label", "Gym"] }, BACK, { tap: "OK" }] },
  shop_add_to_cart: { steps: [{ launch: "shop" }, { tap: "USB-C charger 65W" }, { tap: "Add to cart" }, BACK, { tap: "Phone case, blue" }, { tap: "Add to cart" }] },
  shop_checkout: { steps: [{ launch: "shop" }, { scrollTo: "Coffee beans 1kg" }, { tap: "Buy now" }, { type: ["shipping_address", "1 Market St, San Francisco"] }, BACK, { tap: "Pay now" }] },
  mail_meeting_time: { steps: [{ launch: "mail" }, { tap: "Maria Garcia · Project kickoff meeting" }], answer: "2026-12-03 at 14:00" },
  notes_create: { steps: [{ launch: "notes" }, { tap: "New note" }, { type: ["note_title", "Groceries"] }, { type: ["note_body", "milk, eggs, bread"] }, BACK, { tap: "Save" }] },
  notes_chinese: { steps: [{ launch: "notes" }, { tap: "New note" }, { type: ["note_title", "购物清单"] }, { type: ["note_body", "牛奶、鸡蛋、面包"] }, BACK, { tap: "Save" }] },
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
    it(`${task.id} can be completed through the UI and scores 1`, () => {
      const clock = new ManualClock();
      const phone = new PhoneEngine({ scenario: "social", seed: 1, clock });
      phone.startTask(task.id);
      const solution = SOLUTIONS[task.id]!;
      run(phone, clock, solution.steps);
      const r = phone.evaluate(task.id, { answer: solution.answer });
      expect(r.reason).toBe(`all ${r.checks.length} checks passed`);
      expect(r.score).toBe(1);
    });
  }
});
