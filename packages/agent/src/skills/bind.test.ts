// A skill's parameters: bound everywhere a parameter may appear, never guessed; and which skills a todo is offered
// (its title, inputs and goal against each skill's description and parameters), in several languages.
import { describe, expect, it } from "vitest";
import { bindSkill, type SkillBody } from "./contract.ts";
import { describeSkills, skillsForTodo, SKILLS_PER_TODO, type OfferedSkill } from "../graph/learning.ts";

const at = { x: 500, y: 500 };
const noteSkill = (over: Partial<SkillBody> = {}): SkillBody => ({
  format: 1,
  app: "com.example.notes",
  description: "create a note titled {title} containing {body}",
  params: ["title", "body"],
  example: { title: "Groceries", body: "milk" },
  pre: { app: "com.example.notes", activity: "com.example.notes.ListActivity", required: [{ resourceId: "com.example.notes:id/new", at }] },
  steps: [
    { action: { type: "click_then_type", element: "1", text: "{title}" }, target: { resourceId: "com.example.notes:id/title", at }, before: { app: "com.example.notes", required: [] } },
    { action: { type: "input_text", text: "{body} and {later}" }, before: { app: "com.example.notes", required: [{ text: "{title}", at }] } },
    { action: { type: "click", element: "2" }, target: { text: "Save {title}", at }, before: { app: "com.example.notes", required: [] } },
  ],
  post: { app: "com.example.notes", required: [{ text: "{title}", at }, { text: "{body}", at }] },
  ...over,
});

describe("bindSkill", () => {
  it("puts each value in typed text, a target's text and a contract's required text; a {x} that is not a parameter stays literal", () => {
    const r = bindSkill(noteSkill(), { title: "Einkauf", body: "Milch" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const b = r.body;
    expect(b.steps[0]!.action).toMatchObject({ text: "Einkauf" });
    expect(b.steps[1]!.action).toMatchObject({ text: "Milch and {later}" });
    expect(b.steps[1]!.before.required[0]!.text).toBe("Einkauf");
    expect(b.steps[2]!.target!.text).toBe("Save Einkauf");
    expect(b.post.required.map((r) => r.text)).toEqual(["Einkauf", "Milch"]);
    // The stored body is left as it was.
    expect(noteSkill().steps[0]!.action).toMatchObject({ text: "{title}" });
  });

  it("a missing or empty value is missing (never guessed); a value for a name the skill lacks is ignored", () => {
    expect(bindSkill(noteSkill(), { title: "Groceries" })).toEqual({ ok: false, missing: ["body"] });
    expect(bindSkill(noteSkill(), { title: " ", body: "" })).toEqual({ ok: false, missing: ["title", "body"] });
    const r = bindSkill(noteSkill(), { title: "A", body: "B", colour: "red" });
    expect(r.ok && r.body.steps[1]!.action).toMatchObject({ text: "B and {later}" });
  });

  it("a body without parameters binds as it is", () => {
    const plain = noteSkill({ params: undefined, description: undefined });
    expect(bindSkill(plain, {})).toEqual({ ok: true, body: plain });
  });
});

const offered = (name: string, description: string | undefined, params: string[], unverified = false): OfferedSkill => ({
  id: `skill_${name}`,
  name,
  app: "com.example.notes",
  body: noteSkill({ description, params }),
  ...(unverified ? { unverified: true } : {}),
});

describe("skills offered to a todo", () => {
  const en = offered("create a note titled groceries", "create a note titled {title} containing {body}", ["title", "body"]);
  const de = offered("Notiz erstellen", "erstelle eine Notiz mit dem Titel {title}", ["title"]);
  const zh = offered("创建笔记", "创建标题为{title}的笔记", ["title"]);
  const lamp = offered("turn the lamp on", "turn the lamp on", []);
  const all = [lamp, en, de, zh];
  const names = (todo: { title: string; inputs?: Record<string, string>; goal: string }) => skillsForTodo(all, todo).map((s) => s.name);

  it("a matching todo is offered its skill, an unrelated one is not (English, German, Chinese)", () => {
    expect(names({ title: "Create a note titled Holidays containing passports", goal: "Plan the trip" })).toEqual([en.name]);
    expect(names({ title: "Erstelle eine Notiz mit dem Titel Urlaub", goal: "Reise planen" })).toEqual([de.name]);
    expect(names({ title: "创建标题为假期的笔记", goal: "计划旅行" })).toEqual([zh.name]);
    expect(names({ title: "Turn the lamp on", goal: "Light the room" })).toEqual([lamp.name]);
    expect(names({ title: "Pay for the cart", goal: "Buy the earbuds" })).toEqual([]);
    expect(names({ title: "Bezahle den Warenkorb", goal: "Kopfhörer kaufen" })).toEqual([]);
    expect(names({ title: "支付购物车", goal: "购买耳机" })).toEqual([]);
  });

  it("a todo's inputs and the goal count; an old body without a description matches by its name", () => {
    expect(names({ title: "Write it down", inputs: { note: "create a note titled Groceries" }, goal: "Shopping" })).toEqual([en.name]);
    expect(names({ title: "Do it", goal: "Create a note titled Groceries containing milk" })).toEqual([en.name]);
    const old = offered("open the lamp controls", undefined, []);
    expect(skillsForTodo([old], { title: "Open the lamp controls", goal: "x" }).map((s) => s.name)).toEqual([old.name]);
  });

  it("a todo's values do not count as its words: one that fills a description's places is offered that skill first", () => {
    const send = offered("send a message", "Send {recipient} the message '{text}'", ["recipient", "text"]);
    const open = offered("open a conversation", "Open the conversation with {recipient}", ["recipient"]);
    const event = offered("create an event", "Erstelle einen Termin „{title}“ am {date} um {time}", ["title", "date", "time"]);
    const first = (title: string) => skillsForTodo([open, send, event], { title, goal: title })[0]?.name;
    expect(first("Send Alice Chen the message 'Running 10 minutes late, start without me'")).toBe("send a message");
    expect(first("Erstelle einen Termin „Zahnarzt“ am 2026-12-10 um 09:00")).toBe("create an event");
    expect(first("Open the conversation with Bob Miller")).toBe("open a conversation");
    expect(first("Turn Bluetooth on")).toBeUndefined();
  });

  it("validated before candidates on ties, at most five", () => {
    const cand = { ...en, id: "skill_c", name: "candidate", unverified: true };
    const val = { ...en, id: "skill_v", name: "validated" };
    expect(skillsForTodo([cand, val], { title: "Create a note titled X containing Y", goal: "g" }).map((s) => s.name)).toEqual(["validated", "candidate"]);
    const many = Array.from({ length: 8 }, (_, i) => ({ ...en, id: `s${i}`, name: `n${i}` }));
    expect(skillsForTodo(many, { title: "Create a note titled X containing Y", goal: "g" })).toHaveLength(SKILLS_PER_TODO);
  });

  it("the prompt lists each with its description and {params}, five skills in a few hundred characters", () => {
    const line = describeSkills([en]);
    expect(line).toBe('- "create a note titled groceries" (com.example.notes): create a note titled {title} containing {body}; params: {title}, {body}; 3 step(s), starts on com.example.notes.ListActivity with #new');
    const five = describeSkills(Array.from({ length: 5 }, (_, i) => ({ ...en, name: `${en.name} ${i}` })));
    // About a quarter of a token per character: five skills stay well under 400 tokens.
    expect(five.length).toBeLessThan(1200);
  });
});
