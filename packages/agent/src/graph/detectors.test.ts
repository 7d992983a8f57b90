// Acceptance: repetition over (action, target, screen) (flagged at the 5th, reminder on the next request; taps
// that move the screen or a counter are progress), cycles of 2 and 3, frozen screen, oscillation, and the scroll
// budget (9 scrolls among the last 12 actions, waits not counted) → the executor exits and the planner replans.
import { describe, expect, it } from "vitest";
import { runAgent } from "./run.ts";
import { FakePhone, box, type FakeScreen } from "../testing/fake-phone.ts";
import { act, type ScriptEntry } from "../testing/scripted-model-server.ts";
import { planOf } from "../testing/harness.ts";
import { useHarness } from "../testing/use-harness.ts";

const GOAL = "Find the settings page of the notes app";
const agent = { name: "test-worker", kind: "headless" as const, capabilities: ["phone"] };
const harness = useHarness();

const COLORS = ["#111", "#a22", "#2a2", "#22a", "#aa2", "#2aa", "#a2a", "#777", "#fff"];
/** Screens s0..s8, each different; a tap on the big button moves to the next one. */
function chain(n = 9): Record<string, FakeScreen> {
  const screens: Record<string, FakeScreen> = {};
  for (let i = 0; i < n; i++)
    screens[`s${i}`] = {
      app: "com.example.notes",
      background: COLORS[i]!,
      back: `s${Math.min(n - 1, i + 1)}`,
      elements: [
        { id: "next", text: "Next", bounds: box(50 + 10 * i, 50 + 5 * i, 950 - 10 * i, 400 + 30 * i), clickable: true, onTap: `s${Math.min(n - 1, i + 1)}` },
        { id: `label${i}`, text: `Page ${i}`, bounds: box(0, 800 + 10 * i, 500 + 50 * i, 950) },
      ],
    };
  return screens;
}

const hasReminder = (text: string) => text.includes("REMINDER:");

describe("post-execute anomaly detection", () => {
  it("five taps that each change the screen are progress: no repetition, no frozen screen", async () => {
    const phone = new FakePhone(chain(), "s0");
    const taps: ScriptEntry[] = Array.from({ length: 6 }, () => act({ type: "click", x: 500, y: 180, intent: "next page" }));
    const h = await harness({ device: phone, executor: [...taps, act({ type: "status", status: "complete" })] });
    const out = await runAgent(h.ports, { goal: GOAL, agent });
    expect(out.status).toBe("completed");
    const reqs = h.executorRequests();
    expect(reqs).toHaveLength(7);
    for (const r of reqs) expect(hasReminder(r.lastUserText)).toBe(false);
    expect(h.cp.evidenceList({ kind: "anomaly" })).toEqual([]);
  });

  it("a tap repeated on a screen that does not change is flagged at the 5th, and the reminder says what was seen", async () => {
    const dead: Record<string, FakeScreen> = { a: { app: "com.example.notes", background: "#345", elements: [{ id: "sync", text: "Sync", bounds: box(0, 0, 1000, 1000), clickable: true }] } };
    const phone = new FakePhone(dead, "a");
    const taps: ScriptEntry[] = Array.from({ length: 6 }, () => act({ type: "click", x: 500, y: 500, intent: "sync" }));
    const h = await harness({ device: phone, executor: [...taps, act({ type: "status", status: "complete" })] });
    await runAgent(h.ports, { goal: GOAL, agent });
    const reqs = h.executorRequests();
    const sixth = reqs[5]!.lastUserText;
    expect(sixth).toMatch(/last 5 actions were the same click on "sync", and the screen \(image and text\) was the same before each of them/);
    expect(sixth).toContain(`The original task is: ${GOAL}`);
    expect(h.cp.evidenceList({ kind: "anomaly" }).find((a) => a.data?.kind === "repetition")!.stepIndex).toBe(5);
  });

  it("a counter that moves is progress: six '+' taps change only the UI text, nothing is flagged", async () => {
    let qty = 1;
    const screens: Record<string, FakeScreen> = {
      cart: {
        app: "com.example.shop",
        background: "#fafafa",
        elements: [
          { id: "plus", text: "+", bounds: box(800, 400, 950, 500), clickable: true, onTap: () => void (screens.cart!.elements[1]!.text = `Qty ${++qty}`) },
          { id: "qty", text: "Qty 1", bounds: box(300, 400, 700, 500) },
        ],
      },
    };
    const phone = new FakePhone(screens, "cart");
    const taps: ScriptEntry[] = Array.from({ length: 6 }, () => act({ type: "click", x: 870, y: 450, intent: "one more" }));
    const h = await harness({ device: phone, executor: [...taps, act({ type: "status", status: "complete" })] });
    await runAgent(h.ports, { goal: "Order seven", agent });
    expect(qty).toBe(7);
    expect(h.cp.evidenceList({ kind: "anomaly" })).toEqual([]);
    for (const r of h.executorRequests()) expect(hasReminder(r.lastUserText)).toBe(false);
  });

  it("flags an A-B-A-B action cycle (back / enter / back / enter) on screens that do not move", async () => {
    const still: Record<string, FakeScreen> = { a: { app: "com.example.notes", background: "#345", elements: [{ id: "f", text: "Title", bounds: box(0, 0, 1000, 200), editable: true }] } };
    const phone = new FakePhone(still, "a");
    const script = [act({ type: "navigate_back" }), act({ type: "keyboard_enter" }), act({ type: "navigate_back" }), act({ type: "keyboard_enter" }), act({ type: "status", status: "complete" })];
    const h = await harness({ device: phone, executor: script });
    await runAgent(h.ports, { goal: GOAL, agent });
    const reqs = h.executorRequests();
    expect(reqs[4]!.lastUserText).toMatch(/alternate navigate_back \/ keyboard_enter/);
    expect(reqs[4]!.lastUserText).toContain(GOAL);
    expect(h.cp.evidenceList({ kind: "anomaly" }).map((a) => a.data?.kind)).toContain("cycle");
  });

  it("flags an A-B-C-A-B-C loop over three screens", async () => {
    const screens: Record<string, FakeScreen> = {
      a: { app: "com.example.notes", background: "#113", elements: [{ id: "to_b", text: "Folders", bounds: box(0, 0, 1000, 300), clickable: true, onTap: "b" }] },
      b: { app: "com.example.notes", background: "#d84", elements: [{ id: "to_c", text: "Archive", bounds: box(0, 350, 1000, 650), clickable: true, onTap: "c" }] },
      c: { app: "com.example.notes", background: "#4d8", elements: [{ id: "to_a", text: "Home", bounds: box(0, 700, 1000, 1000), clickable: true, onTap: "a" }] },
    };
    const phone = new FakePhone(screens, "a");
    const round = [act({ type: "click", x: 500, y: 150 }), act({ type: "click", x: 500, y: 500 }), act({ type: "click", x: 500, y: 850 })];
    const h = await harness({ device: phone, executor: [...round, ...round, act({ type: "status", status: "complete" })] });
    await runAgent(h.ports, { goal: GOAL, agent });
    const reqs = h.executorRequests();
    for (let i = 0; i < 6; i++) expect(hasReminder(reqs[i]!.lastUserText), `request ${i + 1}`).toBe(false);
    expect(reqs[6]!.lastUserText).toMatch(/went twice through the cycle click on "to_b" → click on "to_c" → click on "to_a" and came back to the same screens/);
    expect(h.cp.evidenceList({ kind: "anomaly" }).map((a) => a.data?.kind)).toEqual(["cycle"]);
  });

  it("scrolls interleaved with waits still spend the scroll budget: the 9th scroll exits to the planner", async () => {
    const feed: Record<string, FakeScreen> = { feed: { app: "com.example.notes", background: "#eee", elements: [{ id: "list", text: "Notes", bounds: box(0, 100, 1000, 1000) }] } };
    const phone = new FakePhone(feed, "feed");
    const interleaved = Array.from({ length: 9 }, () => [act({ type: "scroll", direction: "down" }), act({ type: "wait", ms: 100 })]).flat();
    const h = await harness({
      device: phone,
      executor: [...interleaved.slice(0, -1), act({ type: "status", status: "complete", summary: "opened settings from the menu" })],
      planner: [
        planOf([{ id: "t1", title: "Scroll to the settings entry" }]),
        { text: JSON.stringify({ decision: "replan", reason: "scrolling found nothing; use the menu", todos: [{ id: "t2", title: "Open settings from the overflow menu" }] }) },
      ],
    });
    await runAgent(h.ports, { goal: GOAL, agent });
    expect(phone.actions().filter((c) => c.op === "scroll")).toHaveLength(9);
    const streak = h.cp.evidenceList({ kind: "anomaly" }).find((a) => a.data?.kind === "scroll_streak")!;
    expect(streak.summary).toMatch(/9 of the last 9 actions \(waits not counted\) were scrolls/);
    expect(h.plannerRequests()[1]!.lastUserText).toContain("scroll_streak");
  });

  it("flags a frozen screen: 3 identical screenshots after taps that change nothing", async () => {
    const dead: Record<string, FakeScreen> = { a: { app: "com.example.notes", background: "#345", elements: [{ id: "dead", text: "Sync", bounds: box(0, 0, 1000, 1000), clickable: true }] } };
    const phone = new FakePhone(dead, "a");
    const script = [act({ type: "click", x: 100, y: 100 }), act({ type: "click", x: 600, y: 600 }), act({ type: "status", status: "complete" })];
    const h = await harness({ device: phone, executor: script });
    await runAgent(h.ports, { goal: GOAL, agent });
    const reqs = h.executorRequests();
    expect(hasReminder(reqs[1]!.lastUserText)).toBe(false);
    expect(reqs[2]!.lastUserText).toMatch(/not responding/);
    expect(h.cp.evidenceList({ kind: "anomaly" }).map((a) => a.data?.kind)).toEqual(["frozen_screen"]);
  });

  it("does not call a screen frozen after wait or scroll", async () => {
    const dead: Record<string, FakeScreen> = { a: { app: "com.example.notes", background: "#345", elements: [{ id: "list", text: "List", bounds: box(0, 0, 1000, 1000) }] } };
    const phone = new FakePhone(dead, "a");
    const h = await harness({ device: phone, executor: [act({ type: "wait", ms: 500 }), act({ type: "wait", ms: 500 }), act({ type: "status", status: "complete" })] });
    await runAgent(h.ports, { goal: GOAL, agent });
    expect(h.cp.evidenceList({ kind: "anomaly" }).map((a) => a.data?.kind)).not.toContain("frozen_screen");
  });

  it("flags A-B-A-B screen oscillation", async () => {
    const screens: Record<string, FakeScreen> = {
      a: { app: "com.example.notes", background: "#113", elements: [{ id: "open", text: "Open", bounds: box(0, 0, 1000, 300), clickable: true, onTap: "b" }] },
      b: { app: "com.example.notes", background: "#d84", elements: [{ id: "close", text: "Close", bounds: box(0, 600, 1000, 1000), clickable: true, onTap: "a" }] },
    };
    const phone = new FakePhone(screens, "a");
    const script = [act({ type: "click", x: 500, y: 100 }), act({ type: "click", x: 500, y: 800 }), act({ type: "click", x: 500, y: 100 }), act({ type: "status", status: "complete" })];
    const h = await harness({ device: phone, executor: script });
    await runAgent(h.ports, { goal: GOAL, agent });
    const reqs = h.executorRequests();
    expect(reqs[3]!.lastUserText).toMatch(/alternates between the same two pages/);
    expect(h.cp.evidenceList({ kind: "anomaly" }).map((a) => a.data?.kind)).toContain("oscillation");
  });

  it("9 scrolls in a row: the executor exits and the planner replans", async () => {
    const feed: Record<string, FakeScreen> = { feed: { app: "com.example.notes", background: "#eee", elements: [{ id: "list", text: "Notes", bounds: box(0, 100, 1000, 1000) }] } };
    const phone = new FakePhone(feed, "feed");
    const scrolls = Array.from({ length: 9 }, () => act({ type: "scroll", direction: "down" }));
    const h = await harness({
      device: phone,
      executor: [...scrolls, act({ type: "status", status: "complete", summary: "opened settings from the menu" })],
      planner: [
        planOf([{ id: "t1", title: "Scroll to the settings entry" }]),
        { text: JSON.stringify({ decision: "replan", reason: "scrolling found nothing; use the menu", todos: [{ id: "t2", title: "Open settings from the overflow menu" }] }) },
      ],
    });
    const out = await runAgent(h.ports, { goal: GOAL, agent });
    expect(phone.actions().filter((c) => c.op === "scroll")).toHaveLength(9);
    const plannerReqs = h.plannerRequests();
    expect(plannerReqs).toHaveLength(2);
    expect(plannerReqs[1]!.lastUserText).toContain("scroll_streak");
    const todos = [...h.cp.todos.values()];
    const first = todos.find((t) => t.title === "Scroll to the settings entry")!;
    expect(first.state).toBe("superseded");
    expect(first.reason).toMatch(/scroll_streak/);
    expect(first.lastResult).toBe("replan_required");
    expect(todos.find((t) => t.title === "Open settings from the overflow menu")!.state).toBe("done");
    expect(out.status).toBe("completed");
  });
});
