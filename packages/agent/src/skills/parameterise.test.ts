// A skill's parameters: text that came from the goal, a todo's title or the blackboard becomes `{name}`; anything
// else the run typed or tapped stays literal. Bodies are distilled from recorded actions as a run leaves them.
import { describe, expect, it } from "vitest";
import type { Evidence } from "../ports.ts";
import { readSkillBody, type SkillBody } from "./contract.ts";
import { describeWork, distilSkill, paramNameOf, parameterise, recordedActions, skillName, withoutSecrets, withoutStepNumber, type RecordedAction, type RecordedScreen, type ValueSource } from "./distil.ts";

const screen = (app: string, activity: string, els: [string, string][]): RecordedScreen => ({ app, activity, width: 1001, height: 1001, elements: els.map(([text, id], i) => ({ text, resourceId: id, box: [0, i * 100, 1000, i * 100 + 90] as [number, number, number, number] })) });
const at = (i: number) => ({ x: 500, y: i * 100 + 45 });
const type = (before: RecordedScreen, i: number, text: string): RecordedAction => ({ before, action: { type: "click_then_type", text }, px: at(i) });
const tap = (before: RecordedScreen, i: number): RecordedAction => ({ before, action: { type: "click" }, px: at(i) });
const typedTexts = (b: SkillBody) => b.steps.map((s) => ("text" in s.action ? s.action.text : null)).filter((t) => t !== null);

const editor = screen("com.notes", "com.notes.Edit", [["", "com.notes:id/note_title"], ["", "com.notes:id/note_body"], ["Save", "com.notes:id/save"]]);
const note = (title: string, body: string, extra: RecordedAction[] = []) => distilSkill([type(editor, 0, title), type(editor, 1, body), ...extra, tap(editor, 2)], editor)!;

describe("parameters", () => {
  it("text typed from the goal's words becomes a parameter named by the field it went into; text from no source stays literal", () => {
    const goal: ValueSource = { text: "Create a note titled Groceries containing milk and eggs in Notes.", from: "goal" };
    const body = parameterise(note("Groceries", "milk and eggs"), [goal]);
    expect(typedTexts(body)).toEqual(["{title}", "{body}"]);
    expect(body.params).toEqual(["title", "body"]);
    expect(body.example).toEqual({ title: "Groceries", body: "milk and eggs" });
    // The Save tap is the app's own: it stays; so does a text the skill always types.
    expect(body.steps.at(-1)!.target).toMatchObject({ text: "Save" });
    const literal = parameterise(note("Groceries", "Shopping"), [goal]);
    expect(typedTexts(literal)).toEqual(["{title}", "Shopping"]);
    expect(literal.params).toEqual(["title"]);
    // Nothing from a source: the body comes back as it was, without params.
    const none = note("Weekly", "Plans");
    expect(parameterise(none, [goal])).toEqual(none);
  });

  it("a keyed value (the blackboard, a todo's input) is named by its key, also inside a longer text, as a whole word only", () => {
    const msg = screen("com.msg", "com.msg.Thread", [["", "com.msg:id/compose_message_text"], ["Send", "com.msg:id/send"]]);
    const body = distilSkill([type(msg, 0, "The Wireless Earbuds costs $49.99, art party"), tap(msg, 1)], msg)!;
    const out = parameterise(body, [{ key: "price", value: "$49.99" }, { key: "style", value: "art" }, { key: "mood", value: "party" }]);
    // "art" is not a word of "party"'s: only the whole words are replaced.
    expect(typedTexts(out)).toEqual(["The Wireless Earbuds costs {price}, {style} {mood}"]);
    expect(out.example).toEqual({ price: "$49.99", style: "art", mood: "party" });
    const whole = parameterise(distilSkill([type(msg, 0, "$49.99"), tap(msg, 1)], msg)!, [{ key: "itemPrice", value: "$49.99" }]);
    expect(typedTexts(whole)).toEqual(["{item_price}"]);
  });

  it("a todo title's quoted phrase is a parameter wherever it is typed; a title's quoted button is not a tapped value", () => {
    const title: ValueSource = { text: 'In Notes, type "Dentist at 9:30" into note_title, then tap "Save"', from: "title" };
    const body = parameterise(note("Reminder: Dentist at 9:30!", "bring the card"), [title]);
    expect(typedTexts(body)).toEqual(["Reminder: {title}!", "bring the card"]);
    expect(body.steps.at(-1)!.target?.text).toBe("Save");
  });

  it("a tapped element the goal names (a contact) is a parameter, in the step's contract too; the app's label on the launcher is not", () => {
    const launcher = screen("com.launcher", "com.launcher.Home", [["Contacts", ""]]);
    const list = screen("com.contacts", "com.contacts.List", [["Alice Chen", "com.contacts:id/contact_name"], ["Bob Miller", "com.contacts:id/contact_name"]]);
    const card = screen("com.contacts", "com.contacts.Card", [["Call", "com.contacts:id/call"]]);
    const body = distilSkill([tap(launcher, 0), tap(list, 1), tap(card, 0)], card)!;
    const out = parameterise(body, [{ text: "Open Contacts and call Bob Miller.", from: "goal" }], { literals: ["Contacts"] });
    expect(out.steps.map((s) => s.target?.text)).toEqual(["Contacts", "{name}", "Call"]);
    expect(out.steps[1]!.before.required).toEqual([{ resourceId: "com.contacts:id/contact_name", text: "{name}", at: { x: 500, y: 145 } }]);
    expect(out.example).toEqual({ name: "Bob Miller" });
    // A goal that starts with the button's word does not make the button a value.
    expect(parameterise(body, [{ text: "Call Bob Miller.", from: "goal" }], { literals: ["Contacts"] }).steps.map((s) => s.target?.text)).toEqual(["Contacts", "{name}", "Call"]);
  });

  it("Chinese values: a phrase of the goal, a quoted reply, and a keyed name inside a sentence (no spaces between words)", () => {
    const goal: ValueSource = { text: "新建一条标题为购物清单的笔记，内容回复“好的，我会参加”", from: "goal" };
    const body = parameterise(note("购物清单", "好的，我会参加"), [goal]);
    expect(typedTexts(body)).toEqual(["{title}", "{body}"]);
    expect(body.example).toEqual({ title: "购物清单", body: "好的，我会参加" });
    const keyed = parameterise(note("张伟的电话", "张伟"), [{ key: "name", value: "张伟" }]);
    expect(typedTexts(keyed)).toEqual(["{name}的电话", "{name}"]);
    expect(keyed.params).toEqual(["name"]);
  });

  it("one value is one parameter; two values for one field name get distinct names; a name the body already types as {x} is not taken", () => {
    const body = parameterise(note("Groceries", "Groceries"), [{ text: "Note Groceries", from: "goal" }]);
    expect(typedTexts(body)).toEqual(["{title}", "{title}"]);
    const two = distilSkill([type(editor, 0, "Alpha"), type(editor, 0, "Beta"), tap(editor, 2)], editor)!;
    expect(typedTexts(parameterise(two, [{ text: "Alpha then Beta", from: "goal" }]))).toEqual(["{title}", "{title_2}"]);
    const braces = parameterise(note("Groceries", "see {title}"), [{ text: "Groceries", from: "goal" }]);
    expect(typedTexts(braces)).toEqual(["{title_2}", "see {title}"]);
    expect(braces.params).toEqual(["title_2"]);
  });

  it("names from resource ids: the last word that is not a widget's kind", () => {
    expect(paramNameOf("com.notes:id/note_title", "text")).toBe("title");
    expect(paramNameOf("com.c:id/contact_phone_input", "text")).toBe("phone");
    expect(paramNameOf("com.m:id/compose_message_text", "text")).toBe("message");
    expect(paramNameOf("com.l:id/searchInput", "text")).toBe("search");
    expect(paramNameOf("com.x:id/edit_text", "text")).toBe("text");
    expect(paramNameOf(undefined, "text")).toBe("text");
  });
});

describe("what a skill does in words", () => {
  it("its todos' titles without a planner's step numbering, the app said once, values as their {name}", () => {
    expect(withoutStepNumber("Step 3 of 6: In Shop, tap \"Buy now\"")).toBe('In Shop, tap "Buy now"');
    const titles = ["Step 1 of 4: Open Notes", 'Step 2 of 4: In Notes, tap "New note"', 'Step 3 of 4: In Notes, type "Groceries" into note_title', 'Step 4 of 4: In Notes, type "The price is {in:price}" into note_body'];
    expect(describeWork(titles, { title: "Groceries", price: "$5" })).toBe('Open Notes, tap "New note", type "{title}" into note_title, type "The price is {price}" into note_body');
    expect(describeWork(['In Clock, tap "Add alarm"', "In Clock, set {in:alarm_time}"])).toBe('In Clock, tap "Add alarm", set the alarm time');
    // The reference policy's checkout (the demo's planner): its skill's name says the work, not "step 3 of 6".
    const checkout = ["Open Shop", 'In Shop, tap "Wireless Earbuds"', 'In Shop, tap "Buy now"', 'In Shop, type "12 Main St" into shipping_address', "In Shop, close the keyboard", 'In Shop, tap "Pay now"'].map((t, i) => `Step ${i + 1} of 6: ${t}`);
    expect(skillName(describeWork(checkout, { item: "Wireless Earbuds", address: "12 Main St" }))).toBe("open shop tap item tap buy now type address into shipping address close the keyboard tap pay now");
  });
});

describe("a step's screenshot", () => {
  const ev = (kind: Evidence["kind"], data: Record<string, unknown>, blobSha256: string | null = null): Evidence => ({ id: String(Math.random()), goalId: "g", runId: "r", todoId: "t", stepIndex: 0, kind, summary: "", data, blobSha256, createdAt: 0 });
  const obs = (activity: string, sha: string | null) => ev("observation", { app: `com.notes/${activity}`, screen: { width: 1001, height: 1001 }, elements: [{ i: 0, text: "New note", id: "com.notes:id/new", box: [0, 0, 1000, 90] }] }, sha);
  it("is the blob of the observation the step started from; a skill's own step has its own (none here)", () => {
    const { actions, last } = recordedActions([
      obs(".Main", "a".repeat(64)),
      ev("action", { action: { type: "click", element: "0" }, px: { x: 500, y: 45 } }),
      obs(".Edit", "b".repeat(64)),
      ev("action", { action: { type: "input_text", text: "x" }, px: null }),
      // A skill's own step is recorded without the point of its action (its target names the element).
      ev("action", { action: { type: "click" }, px: { x: 500, y: 45 }, before: { app: "com.notes/.Edit", screen: { width: 1001, height: 1001 }, elements: [{ text: "Save", id: "com.notes:id/save", box: [0, 0, 1000, 90] }] }, skill: { id: "s1", step: 0 } }),
      obs(".Edit", null),
    ]);
    const body = distilSkill(actions, last)!;
    expect(body.steps.map((s) => s.shot)).toEqual(["a".repeat(64), "b".repeat(64), undefined]);
    expect(body.steps[2]).toMatchObject({ action: { type: "click" }, target: { resourceId: "com.notes:id/save" } });
    expect(readSkillBody(JSON.parse(JSON.stringify(body)))).toEqual(body);
  });
  it("leaves out what was a part of a skill's step: its scrolls looking for the element and its taps closing a popup it did not expect", () => {
    const before = { app: "com.notes/.Main", screen: { width: 1001, height: 1001 }, elements: [{ text: "New note", id: "com.notes:id/new", box: [0, 0, 1000, 90] }] };
    const { actions } = recordedActions([
      obs(".Main", null),
      ev("action", { action: { type: "scroll", direction: "down" }, px: null, before, skill: { id: "s1", step: 0, seek: 0 } }),
      ev("action", { action: { type: "click" }, px: { x: 500, y: 900 }, before, skill: { id: "s1", step: 0, popup: 0 } }),
      ev("action", { action: { type: "click" }, px: { x: 500, y: 45 }, before, skill: { id: "s1", step: 0 } }),
    ]);
    expect(actions.map((a) => a.action.type)).toEqual(["click"]);
    expect(actions[0]!.px).toEqual({ x: 500, y: 45 });
  });
});

describe("reading a stored body", () => {
  const old = note("a", "b");
  it("reads a body without the optional fields, and one with them; refuses parameters that are not names and examples that are not text", () => {
    expect(readSkillBody(old)).toEqual(old);
    const full = { ...old, description: "write a note", params: ["title"], example: { title: "a" } };
    expect(readSkillBody(full)).toEqual(full);
    expect(readSkillBody({ ...old, params: ["Title"] })).toBeNull();
    expect(readSkillBody({ ...old, params: "title" })).toBeNull();
    expect(readSkillBody({ ...old, example: { title: 3 } })).toBeNull();
    expect(readSkillBody({ ...old, description: 3 })).toBeNull();
    expect(readSkillBody({ ...old, steps: [{ ...old.steps[0]!, shot: 5 }] })).toBeNull();
  });
});

describe("a list row's title as a parameter", () => {
  const threads = screen("com.msg", "com.msg.Threads", [["Bob Miller Did you order the charger?", ""], ["Alice Chen See you at the sync!", ""]]);
  const shop = screen("com.shop", "com.shop.Home", [["Desk lamp $24.00", ""], ["Coffee beans 1kg $21.00", ""]]);

  it("a tapped row whose text starts with the goal's value names it by that start, and finds the row of another value whatever its preview", async () => {
    const { bindSkill, findElement } = await import("./contract.ts");
    const body = parameterise(distilSkill([tap(threads, 0)], threads)!, [{ text: "Send the text message 'On my way' to Bob Miller.", from: "goal" }]);
    expect(body.steps[0]!.target).toMatchObject({ text: "{item}", textStarts: true });
    expect(body.example).toEqual({ item: "Bob Miller" });
    const bound = bindSkill(body, { item: "Alice Chen" });
    if (!bound.ok) throw new Error("not bound");
    const els = threads.elements.map((e) => ({ ...e, clickable: true, bounds: { left: e.box[0], top: e.box[1], right: e.box[2], bottom: e.box[3] } }));
    expect(findElement(bound.body.steps[0]!.target!, els as never)?.element.text).toBe("Alice Chen See you at the sync!");
    // Only up to a word's end: "Alice" names no row "Alicex …", and a row must start with it.
    expect(findElement({ ...bound.body.steps[0]!.target!, text: "Alic" }, els as never)).toBeNull();
    expect(findElement({ ...bound.body.steps[0]!.target!, text: "See you" }, els as never)).toBeNull();
  });

  it("a quoted product the goal names is the row's start; a row the goal does not name stays literal", () => {
    const quoted = parameterise(distilSkill([tap(shop, 1)], shop)!, [{ text: "Buy one 'Coffee beans 1kg' and have it shipped to '1 Main St'.", from: "goal" }]);
    expect(quoted.steps[0]!.target).toMatchObject({ text: "{item}", textStarts: true });
    expect(quoted.example).toEqual({ item: "Coffee beans 1kg" });
    const other = distilSkill([tap(shop, 0)], shop)!;
    expect(parameterise(other, [{ text: "Buy one 'Coffee beans 1kg' today.", from: "goal" }])).toEqual(other);
  });
});

describe("a wheel turned to a value", () => {
  // A number picker as Android shows it: the wheel (an id), its value field in the middle row.
  const picker = (hour: string, minute: string): RecordedScreen => ({
    app: "com.clock",
    activity: "com.clock.Edit",
    width: 1001,
    height: 1001,
    elements: [
      { text: "", resourceId: "com.clock:id/hour_picker", box: [0, 100, 500, 400] },
      { text: hour, resourceId: "android:id/numberpicker_input", box: [0, 200, 500, 300] },
      { text: "", resourceId: "com.clock:id/minute_picker", box: [500, 100, 1000, 400] },
      { text: minute, resourceId: "android:id/numberpicker_input", box: [500, 200, 1000, 300] },
      { text: "OK", resourceId: "com.clock:id/save", box: [0, 900, 1000, 990] },
    ],
  });
  const drag = (before: RecordedScreen, x: number, rows: number): RecordedAction => ({ before, action: { type: "drag", from: { x, y: 250 }, to: { x, y: 250 - rows * 100 } }, px: null });

  it("the drags on one wheel are one step that turns it to the value it showed after them, a parameter when the goal gives it", () => {
    const path = [drag(picker("07", "00"), 250, -1), drag(picker("06", "00"), 250, 0), drag(picker("06", "00"), 750, 4), drag(picker("06", "04"), 750, 4), tap(picker("06", "08"), 9)];
    path[4]!.px = { x: 500, y: 945 };
    const body = distilSkill(path, picker("06", "08"))!;
    expect(body.steps.map((s) => [s.action.type, s.turnTo ?? null, s.target?.resourceId ?? null])).toEqual([
      ["drag", "06", "com.clock:id/hour_picker"],
      ["drag", "08", "com.clock:id/minute_picker"],
      ["click", null, "com.clock:id/save"],
    ]);
    const out = parameterise(body, [{ text: "Set an alarm for 06:08 labelled 'Gym'.", from: "goal" }]);
    expect(out.steps.map((s) => s.turnTo ?? null)).toEqual(["{hour}", "{minute}", null]);
    expect(out.example).toEqual({ hour: "06", minute: "08" });
    expect(describeWork(["Set an alarm for 06:08 labelled 'Gym'."], { ...out.example, label: "Gym" })).toBe("Set an alarm for {hour}:{minute} labelled '{label}'");
    // A value from no source stays what the wheel is turned to.
    expect(parameterise(body, [{ text: "Set the usual alarm.", from: "goal" }]).steps[0]!.turnTo).toBe("06");
  });
});

describe("the path's own steps", () => {
  it("a back right after typing (closing the keyboard: the UI tree looks the same) stays; a back after a tap that came back does not", () => {
    const kept = distilSkill([type(editor, 0, "Groceries"), { before: editor, action: { type: "navigate_back" }, px: null }, tap(editor, 2)], editor)!;
    expect(kept.steps.map((s) => s.action.type)).toEqual(["click_then_type", "navigate_back", "click"]);
    const field = screen("com.cal", "com.cal.Edit", [["2026-12-01", "com.cal:id/event_date"], ["Save", "com.cal:id/save"]]);
    // A field typed into shows its date: no piece of the goal's date is a parameter of the field.
    const dated = parameterise(distilSkill([type(field, 0, "2026-12-07"), tap(field, 1)], field)!, [{ text: "Create an event on 2026-12-07 at 09:30.", from: "goal" }]);
    expect(dated.steps[0]!.target).toMatchObject({ text: "2026-12-01" });
    expect(dated.params).toEqual(["date"]);
  });
});

describe("a secret typed into a password field", () => {
  it("is always a parameter, and the kept body has no example of it, even when the goal spells it out", () => {
    const login: RecordedScreen = { ...screen("com.bank", "com.bank.Login", [["", "com.bank:id/user_input"], ["", "com.bank:id/pass_input"], ["Sign in", "com.bank:id/sign_in"]]) };
    login.elements[1]!.password = true;
    const goal = "Sign in as ada with the password hunter22.";
    const body = parameterise(distilSkill([type(login, 0, "ada"), type(login, 1, "hunter22"), tap(login, 2)], login)!, [{ text: goal, from: "goal" }]);
    expect(body.steps[1]).toMatchObject({ secret: true, action: { text: "{pass}" } });
    const description = describeWork([goal], body.example);
    expect(description).toBe("Sign in as {user} with the password {pass}");
    const kept = withoutSecrets(body);
    expect(kept.example).toEqual({ user: "ada" });
    expect(JSON.stringify({ ...kept, description })).not.toContain("hunter22");
    // Not in the goal at all: still a parameter, never kept.
    const unnamed = withoutSecrets(parameterise(distilSkill([type(login, 1, "s3cret!"), tap(login, 2)], login)!, [{ text: "Sign in to the bank.", from: "goal" }]));
    expect(JSON.stringify(unnamed)).not.toContain("s3cret!");
    expect(unnamed.params).toEqual(["pass"]);
  });
});

describe("a row's start in a script without spaces", () => {
  it("the name a Chinese goal writes before the next word is the row's start", () => {
    const threads = screen("com.msg", "com.msg.Threads", [["李雷 明天一起吃饭吗？", ""], ["王芳 好的", ""]]);
    const body = parameterise(distilSkill([tap(threads, 0)], threads)!, [{ text: "给李雷发短信：“明天中午十二点见”", from: "goal" }]);
    expect(body.steps[0]!.target).toMatchObject({ text: "{item}", textStarts: true });
    expect(body.example).toEqual({ item: "李雷" });
  });
});
