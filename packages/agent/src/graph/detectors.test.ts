// Acceptance: repetition (flagged at the 5th, reminder on the next request), cycle, frozen screen, oscillation,
// and 9 scrolls → the executor exits and the planner replans.
import { afterEach, describe, expect, it } from "vitest";
import { runAgent } from "./run.ts";
import { FakePhone, box, type FakeScreen } from "../testing/fake-phone.ts";
import { act, type ScriptEntry } from "../testing/scripted-model-server.ts";
import { planOf, startHarness, type Harness } from "../testing/harness.ts";

const GOAL = "Find the settings page of the notes app";
const agent = { name: "test-worker", kind: "headless" as const, capabilities: ["phone"] };
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

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
  it("flags repetition at the 5th identical tap and the next request carries the reminder with the original task", async () => {
    const phone = new FakePhone(chain(), "s0");
    const taps: ScriptEntry[] = Array.from({ length: 6 }, () => act({ type: "click", x: 500, y: 180, intent: "next page" }));
    h = await startHarness({ device: phone, executor: [...taps, act({ type: "status", status: "complete" })] });
    const out = await runAgent(h.ports, { goal: GOAL, agent });
    expect(out.status).toBe("completed");
    const reqs = h.executorRequests();
    expect(reqs).toHaveLength(7);
    // Requests 1–5 (before and up to the 5th tap's decision) carry no reminder; the 6th does.
    for (let i = 0; i < 5; i++) expect(hasReminder(reqs[i]!.lastUserText)).toBe(false);
    const sixth = reqs[5]!.lastUserText;
    expect(sixth).toContain("REMINDER:");
    expect(sixth).toMatch(/last 5 actions were the same click/);
    expect(sixth).toContain(`The original task is: ${GOAL}`);
    const anomalies = h.cp.evidenceList({ kind: "anomaly" });
    expect(anomalies.map((a) => a.data?.kind)).toContain("repetition");
    expect(anomalies.find((a) => a.data?.kind === "repetition")!.stepIndex).toBe(5);
    // The screens all differed: no frozen-screen false alarm.
    expect(anomalies.some((a) => a.data?.kind === "frozen_screen")).toBe(false);
  });

  it("flags an A-B-A-B action cycle (back / enter / back / enter)", async () => {
    const phone = new FakePhone(chain(), "s0");
    const script = [act({ type: "navigate_back" }), act({ type: "keyboard_enter" }), act({ type: "navigate_back" }), act({ type: "keyboard_enter" }), act({ type: "status", status: "complete" })];
    h = await startHarness({ device: phone, executor: script });
    await runAgent(h.ports, { goal: GOAL, agent });
    const reqs = h.executorRequests();
    expect(hasReminder(reqs[3]!.lastUserText)).toBe(false);
    expect(reqs[4]!.lastUserText).toMatch(/alternate navigate_back \/ keyboard_enter/);
    expect(reqs[4]!.lastUserText).toContain(GOAL);
    expect(h.cp.evidenceList({ kind: "anomaly" }).map((a) => a.data?.kind)).toContain("cycle");
  });

  it("flags a frozen screen: 3 identical screenshots after taps that change nothing", async () => {
    const dead: Record<string, FakeScreen> = { a: { app: "com.example.notes", background: "#345", elements: [{ id: "dead", text: "Sync", bounds: box(0, 0, 1000, 1000), clickable: true }] } };
    const phone = new FakePhone(dead, "a");
    const script = [act({ type: "click", x: 100, y: 100 }), act({ type: "click", x: 600, y: 600 }), act({ type: "status", status: "complete" })];
    h = await startHarness({ device: phone, executor: script });
    await runAgent(h.ports, { goal: GOAL, agent });
    const reqs = h.executorRequests();
    expect(hasReminder(reqs[1]!.lastUserText)).toBe(false);
    expect(reqs[2]!.lastUserText).toMatch(/not responding/);
    expect(h.cp.evidenceList({ kind: "anomaly" }).map((a) => a.data?.kind)).toEqual(["frozen_screen"]);
  });

  it("does not call a screen frozen after wait or scroll", async () => {
    const dead: Record<string, FakeScreen> = { a: { app: "com.example.notes", background: "#345", elements: [{ id: "list", text: "List", bounds: box(0, 0, 1000, 1000) }] } };
    const phone = new FakePhone(dead, "a");
    h = await startHarness({ device: phone, executor: [act({ type: "wait", ms: 500 }), act({ type: "wait", ms: 500 }), act({ type: "status", status: "complete" })] });
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
    h = await startHarness({ device: phone, executor: script });
    await runAgent(h.ports, { goal: GOAL, agent });
    const reqs = h.executorRequests();
    expect(reqs[3]!.lastUserText).toMatch(/alternates between the same two pages/);
    expect(h.cp.evidenceList({ kind: "anomaly" }).map((a) => a.data?.kind)).toContain("oscillation");
  });

  it("9 scrolls in a row: the executor exits and the planner replans", async () => {
    const feed: Record<string, FakeScreen> = { feed: { app: "com.example.notes", background: "#eee", elements: [{ id: "list", text: "Notes", bounds: box(0, 100, 1000, 1000) }] } };
    const phone = new FakePhone(feed, "feed");
    const scrolls = Array.from({ length: 9 }, () => act({ type: "scroll", direction: "down" }));
    h = await startHarness({
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
