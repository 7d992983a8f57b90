// The reference policy's plans: for each task of the virtual phone's pack, the todos a careful person would do,
// one screen move each. A move names what to act on by what the screen shows (an element's text or resource id),
// never by a position, and takes its values from the goal's words, from what an earlier todo read off the screen
// (the blackboard, `{in:key}`), or from a host todo's computation.
import type { MatchedTask } from "./tasks.ts";

/** An element: by resource id, by its text (exact first, then the first element containing it), or the n-th post listed. */
export type Target = { id: string } | { text: string } | { post: number };

export type Move =
  | { do: "open"; app: string }
  | { do: "tap"; target: Target; scroll?: boolean }
  | { do: "type"; field: string; text: string }
  /** Close the on-screen keyboard (only when it is up). */
  | { do: "hide_keyboard" }
  | { do: "back" }
  | { do: "home" }
  | { do: "enter" }
  /** Turn a wheel picker to a value ("HH:MM" part given by `part`). */
  | { do: "wheel"; wheel: string; value: string; part: "hour" | "minute" }
  /** Report values read from the screen's texts: each output key by a pattern's first group, or (`#id`) an element's whole text. */
  | { do: "read"; outputs: Record<string, string> }
  /** Answer the user with what the screen says: the first text matching a pattern (rewritten by `format`), or an element's text. */
  | { do: "answer"; pattern?: string; format?: string; element?: string }
  /**
   * A sign-in whose password the goal does not give: a person takes over to type it and sign in (ask_takeover,
   * reason login); done once the screen shows `signedIn` (a pattern) and no password field.
   */
  | { do: "sign_in"; signedIn: string };

export interface PlannedTodo {
  title: string;
  kind: "executor" | "host";
  app?: string;
  inputs: string[];
  outputs: string[];
  /** Executor todos: the move. Host todos: the computation. */
  move?: Move;
  compute?: "one_hour_before";
}

type P = Record<string, string>;
type Draft = Omit<PlannedTodo, "inputs" | "outputs"> & { inputs?: string[]; outputs?: string[] };

const open = (app: string): Draft => ({ title: `Open ${app}`, kind: "executor", app, move: { do: "open", app } });
const tap = (app: string, what: string, target: Target = { text: what }, scroll = false): Draft => ({ title: `In ${app}, tap "${what}"`, kind: "executor", app, move: { do: "tap", target, scroll } });
const type = (app: string, field: string, text: string, inputs: string[] = []): Draft => ({ title: `In ${app}, type "${text}" into ${field}`, kind: "executor", app, inputs, move: { do: "type", field, text } });
const hide = (app: string): Draft => ({ title: `In ${app}, close the keyboard`, kind: "executor", app, move: { do: "hide_keyboard" } });
const read = (app: string, what: string, outputs: Record<string, string>): Draft => ({ title: `In ${app}, read ${what} from the screen`, kind: "executor", app, outputs: Object.keys(outputs), move: { do: "read", outputs } });

const search = (q: string): Draft[] => [open("Loop"), tap("Loop", "Search", { text: "Search" }), type("Loop", "search_input", q), { title: "In Loop, submit the search", kind: "executor", app: "Loop", move: { do: "enter" } }];

/** Loop lists its search results as "Top posts", most liked first: the top post is the first. */
const topPost = (app: string): Draft => ({ title: `In ${app}, open the top post of the results`, kind: "executor", app, move: { do: "tap", target: { post: 1 } } });

const DATE = String.raw`(\d{4}-\d{2}-\d{2})`;
const TIME = String.raw`(\d{1,2}:\d{2})`;
const PHONE = String.raw`(\+?\d[\d ()-]{5,}\d)`;

/** Text of the goal matched by a pattern (the tasks whose values are written into the goal without parameters). */
const fromGoal = (goal: string, re: RegExp): string => re.exec(goal)?.[1] ?? "";

const PLANS: Record<string, (p: P, goal: string) => Draft[]> = {
  settings_wifi_off: () => [open("Settings"), tap("Settings", "Network & internet"), tap("Settings", "Wi-Fi")],
  settings_bluetooth_on: () => [open("Settings"), tap("Settings", "Connected devices"), tap("Settings", "Use Bluetooth")],
  settings_font_largest: () => [open("Settings"), tap("Settings", "Display"), tap("Settings", "Font size"), tap("Settings", "Largest")],
  settings_connect_cafe: (p) => [open("Settings"), tap("Settings", "Network & internet"), tap("Settings", "Internet"), tap("Settings", p.ssid!)],
  settings_bluetooth_from_home: () => [tap("the launcher", "Settings"), tap("Settings", "Connected devices"), tap("Settings", "Use Bluetooth"), { title: "Go back to the home screen", kind: "executor", move: { do: "home" } }],
  calendar_add_event: (p) => event(p.title!, p.date!, p.time!),
  calendar_chinese_event: (p) => event(p.title!, p.date!, p.time!),
  contacts_add: (p) => contact(p.name!, p.phone!),
  contacts_add_chinese: (p) => contact(p.name!, p.phone!),
  messages_send: (p) => text(p.name!, p.text!),
  messages_send_chinese: (p) => text(p.name!, p.text!),
  clock_set_alarm: (p) => [open("Clock"), tap("Clock", "Add alarm"), ...wheels(p.time!), type("Clock", "alarm_label", p.label!), hide("Clock"), tap("Clock", "OK", { id: "save_alarm" })],
  shop_add_to_cart: (p) => [open("Shop"), tap("Shop", p.a!, { text: p.a! }, true), tap("Shop", "Add to cart"), { title: "In Shop, go back to the catalogue", kind: "executor", app: "Shop", move: { do: "back" } }, tap("Shop", p.b!, { text: p.b! }, true), tap("Shop", "Add to cart")],
  shop_checkout: (p) => [open("Shop"), tap("Shop", p.item!, { text: p.item! }, true), tap("Shop", "Buy now"), type("Shop", "shipping_address", p.address!), hide("Shop"), tap("Shop", "Pay now")],
  notes_create: (p) => note(p.title!, p.body!),
  notes_chinese: (p) => note(p.title!, p.body!),
  mail_meeting_time: () => [
    open("Mail"),
    tap("Mail", "Project kickoff meeting", { text: "kickoff" }),
    { title: "Answer with the meeting's date and time", kind: "executor", app: "Mail", move: { do: "answer", pattern: `${DATE} at ${TIME}`, format: "$1 at $2" } },
  ],
  mail_to_calendar: () => [
    open("Mail"),
    tap("Mail", "Project kickoff meeting", { text: "kickoff" }),
    read("Mail", "the meeting's title, date, time and place", { title: String.raw`^([^\n]*kickoff[^\n]*?)(?: meeting)?$`, date: DATE, time: `at ${TIME}`, place: String.raw`in the ([^.]+)\.` }),
    ...event("{in:title}", "{in:date}", "{in:time}", "{in:place}", ["title", "date", "time", "place"]),
  ],
  shop_to_messages: (p) => [open("Shop"), tap("Shop", p.item!, { text: p.item! }, true), read("Shop", "the price", { price: String.raw`(\$\d[\d,]*(?:\.\d{2})?)` }), ...text(p.name!, `The ${p.item} costs {in:price}`, ["price"])],
  contacts_to_messages: (p) => [open("Contacts"), tap("Contacts", p.who!), read("Contacts", `${p.who}'s phone number`, { phone: PHONE }), ...text(p.to!, `${p.who}: {in:phone}`, ["phone"])],
  social_to_notes: (p) => [...search(p.query!), topPost("Loop"), read("Loop", "the post's view", { view: "#body" }), ...note(p.title!, "{in:view}", ["view"])],
  calendar_to_messages: (p) => [open("Calendar"), tap("Calendar", p.event!), read("Calendar", "the event's date and time", { date: DATE, time: TIME }), ...text(p.name!, `${p.event} is on {in:date} at {in:time}`, ["date", "time"])],
  mail_to_contacts: () => [
    open("Mail"),
    tap("Mail", "Introduction"),
    read("Mail", "the sender's name and phone number", { name: String.raw`I'm ([\p{Lu}][\p{L}]+ [\p{Lu}][\p{L}]+)`, phone: PHONE }),
    ...contact("{in:name}", "{in:phone}", ["name", "phone"]),
  ],
  calendar_to_clock: () => [
    open("Calendar"),
    tap("Calendar", "Dentist"),
    read("Calendar", "the appointment's time", { appointment: TIME }),
    { title: "Work out the time one hour before the appointment", kind: "host", inputs: ["appointment"], outputs: ["alarm"], compute: "one_hour_before" },
    open("Clock"),
    tap("Clock", "Add alarm"),
    ...wheels("{in:alarm}", ["alarm"]),
    tap("Clock", "OK", { id: "save_alarm" }),
  ],
  notes_to_mail: (p) => [open("Notes"), tap("Notes", p.note!), tap("Notes", "Share"), type("Mail", "to", p.to!), hide("Mail"), tap("Mail", "Send")],
  mail_chinese_reply_calendar: (_p, goal) => {
    const subject = fromGoal(goal, /关于(.+?)的邮件/);
    const reply = fromGoal(goal, /回复[“"](.+?)[”"]/);
    const date = fromGoal(goal, new RegExp(`[（(]${DATE}`));
    const time = fromGoal(goal, new RegExp(`${DATE} ${TIME}[）)]`.replace(DATE, String.raw`\d{4}-\d{2}-\d{2}`)));
    return [open("Mail"), tap("Mail", subject), tap("Mail", "Reply"), type("Mail", "body", reply), hide("Mail"), tap("Mail", "Send"), ...event(subject, date, time)];
  },
  social_collect_views: (p) => [
    ...search(p.query!),
    ...[1, 2, 3].flatMap((n): Draft[] => [
      { title: `In Loop, open post ${n} of the results`, kind: "executor", app: "Loop", move: { do: "tap", target: { post: n } } },
      { title: `Answer with the view post ${n} expresses`, kind: "executor", app: "Loop", move: { do: "answer", element: "body" } },
      { title: "In Loop, go back to the results", kind: "executor", app: "Loop", move: { do: "back" } },
    ]),
  ],
  social_like_cost_post: (p) => [...search("mobile AI agents"), tap("Loop", `the post by ${p.author}`, { text: p.author! }, true), tap("Loop", "Like", { id: "like" })],
  social_search_chinese: (p) => [...search(p.query!), topPost("Loop"), tap("Loop", "Save", { id: "save" })],
  social_sign_in_profile: (p) => [
    open("Loop"),
    tap("Loop", "Profile"),
    tap("Loop", "Log in", { id: "profile_login" }),
    type("Loop", "username", p.user!),
    { title: "In Loop, have a person type the password and sign in (the goal does not give it)", kind: "executor", app: "Loop", move: { do: "sign_in", signedIn: String.raw`Logged in as @` } },
  ],
  social_login: (p) => [open("Loop"), tap("Loop", "Profile"), tap("Loop", "Log in", { id: "profile_login" }), type("Loop", "username", p.user!), type("Loop", "password", p.password!), hide("Loop"), tap("Loop", "Log in", { id: "login_button" })],
};

function event(title: string, date: string, time: string, location?: string, inputs: string[] = []): Draft[] {
  return [
    open("Calendar"),
    tap("Calendar", "Create new event"),
    type("Calendar", "event_title", title, inputs.filter((i) => title.includes(`{in:${i}}`))),
    type("Calendar", "event_date", date, inputs.filter((i) => date.includes(`{in:${i}}`))),
    type("Calendar", "event_time", time, inputs.filter((i) => time.includes(`{in:${i}}`))),
    ...(location ? [type("Calendar", "event_location", location, inputs.filter((i) => location.includes(`{in:${i}}`)))] : []),
    hide("Calendar"),
    tap("Calendar", "Save"),
  ];
}

function contact(name: string, phone: string, inputs: string[] = []): Draft[] {
  return [
    open("Contacts"),
    tap("Contacts", "Create contact"),
    type("Contacts", "contact_name", name, inputs.filter((i) => name.includes(`{in:${i}}`))),
    type("Contacts", "contact_phone_input", phone, inputs.filter((i) => phone.includes(`{in:${i}}`))),
    hide("Contacts"),
    tap("Contacts", "Save"),
  ];
}

function text(to: string, message: string, inputs: string[] = []): Draft[] {
  return [open("Messages"), tap("Messages", to), type("Messages", "compose_message_text", message, inputs), hide("Messages"), tap("Messages", "Send")];
}

function note(title: string, body: string, inputs: string[] = []): Draft[] {
  return [open("Notes"), tap("Notes", "New note"), type("Notes", "note_title", title), type("Notes", "note_body", body, inputs), hide("Notes"), tap("Notes", "Save")];
}

function wheels(time: string, inputs: string[] = []): Draft[] {
  return [
    { title: `In Clock, turn the hour wheel to the hour of ${time}`, kind: "executor", app: "Clock", inputs, move: { do: "wheel", wheel: "hour_picker", value: time, part: "hour" } },
    { title: `In Clock, turn the minute wheel to the minute of ${time}`, kind: "executor", app: "Clock", inputs, move: { do: "wheel", wheel: "minute_picker", value: time, part: "minute" } },
  ];
}

/** The plan for a task: todos titled "Step n of N: …" (the number is how the policy finds its move again). */
export function planFor(matched: MatchedTask, goal: string): PlannedTodo[] {
  const make = PLANS[matched.task.id];
  if (!make) return [];
  const drafts = make(matched.params, goal);
  return drafts.map((d, i) => ({ ...d, title: `Step ${i + 1} of ${drafts.length}: ${d.title}`, inputs: d.inputs ?? [], outputs: d.outputs ?? [] }));
}

/** Which step a todo title names. */
export function stepOf(title: string): number | null {
  const m = /Step (\d+) of \d+:/.exec(title);
  return m ? Number(m[1]) : null;
}

/** The tasks the reference policy has a plan for. */
export const PLANNED_TASKS = Object.keys(PLANS);
