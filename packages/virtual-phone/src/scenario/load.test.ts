import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { loadScenario, parseScenario, ScenarioValidationError } from "./load.ts";
import { matchDeeplink } from "./runtime.ts";
import { SCHEMA_FILE, schemaFileText } from "./write-json-schema.ts";

function issuesOf(input: unknown): { path: string; message: string }[] {
  try {
    parseScenario(input, "test.json");
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioValidationError);
    return (e as ScenarioValidationError).issues;
  }
  throw new Error("the scenario was accepted");
}

const minimalApp = {
  id: "demo",
  package: "com.example.demo",
  label: "Demo",
  start: "home",
  screens: [{ id: "home", body: [{ type: "button", text: "Go", onTap: [{ do: "navigate", screen: "next" }] }] }, { id: "next", body: [] }],
};

describe("scenario loading", () => {
  it("ships a pack of at least 8 apps and 24 tasks, 6 cross-app and 4 needing Chinese", () => {
    const s = loadScenario("social");
    expect(s.apps.length).toBeGreaterThanOrEqual(8);
    expect(s.tasks.length).toBeGreaterThanOrEqual(24);
    expect(s.tasks.filter((t) => t.apps.length > 1).length).toBeGreaterThanOrEqual(6);
    expect(s.tasks.filter((t) => t.tags.includes("chinese")).length).toBeGreaterThanOrEqual(4);
    expect(s.apps.map((a) => a.id)).toEqual(expect.arrayContaining(["social", "settings", "calendar", "contacts", "messages", "clock", "shop", "mail", "notes"]));
  });

  it("accepts a minimal valid scenario", () => {
    expect(parseScenario({ name: "mini", apps: [minimalApp] }).apps[0]!.screens).toHaveLength(2);
  });

  it("lets an element override the flags the dump reports", async () => {
    const { PhoneEngine } = await import("../engine.ts");
    const app = structuredClone(minimalApp) as typeof minimalApp & { screens: { body: object[] }[] };
    app.screens[0]!.body.push({ type: "text", id: "banner", text: "Hi", flags: { clickable: true, selected: true } });
    const phone = new PhoneEngine({ scenario: { name: "flags", start: { app: "demo" }, apps: [app] } });
    const xml = phone.uiDump();
    expect(xml).toMatch(/resource-id="com\.example\.demo:id\/banner"[^>]*clickable="true"[^>]*selected="true"/);
  });

  it("rejects a bad field with its path", () => {
    const issues = issuesOf({ name: "bad", apps: [{ ...minimalApp, package: "Not A Package" }] });
    expect(issues[0]!.path).toBe("apps[0].package");
  });

  it("rejects a navigation to a missing screen with the path of the action", () => {
    const app = structuredClone(minimalApp);
    app.screens[0]!.body[0]!.onTap![0]!.screen = "nowhere";
    const issues = issuesOf({ name: "bad", apps: [app] });
    expect(issues).toEqual([{ path: "apps[0].screens[0].body[0].onTap[0].screen", message: 'app "demo" has no screen "nowhere"' }]);
  });

  it("rejects a task variant that does not give exactly the task's params", () => {
    const task = { id: "t", goal: "say {a} and {b}", apps: ["demo"], maxSteps: 3, params: { a: "1", b: "2" }, evaluator: { checks: [{ name: "x", when: { eq: [1, 1] } }] } };
    expect(parseScenario({ name: "ok", apps: [minimalApp], tasks: [{ ...task, variants: [{ a: "3", b: "4" }] }] }).tasks[0]!.variants).toEqual([{ a: "3", b: "4" }]);
    expect(issuesOf({ name: "bad", apps: [minimalApp], tasks: [{ ...task, variants: [{ a: "3", b: "4" }, { a: "5", c: "6" }] }] })).toEqual([
      { path: "tasks[0].variants[1]", message: "a variant gives every param of the task and no other (a, b); this one gives a, c" },
    ]);
  });

  it("rejects unknown keys and wrong types deep inside elements", () => {
    const app = structuredClone(minimalApp) as Record<string, unknown> & typeof minimalApp;
    (app.screens[1]!.body as unknown[]).push({ type: "switch", bind: 3 });
    const issues = issuesOf({ name: "bad", apps: [app] });
    expect(issues.some((i) => i.path === "apps[0].screens[1].body[0].bind")).toBe(true);
  });

  it("rejects tasks that name apps that do not exist", () => {
    const issues = issuesOf({ name: "bad", apps: [minimalApp], tasks: [{ id: "t", goal: "x", apps: ["ghost"], maxSteps: 3, evaluator: { checks: [{ name: "c", when: { truthy: true } }] } }] });
    expect(issues).toEqual([{ path: "tasks[0].apps[0]", message: 'no app with id "ghost"' }]);
  });

  it("explains an unknown scenario name", () => {
    expect(() => loadScenario("no-such-thing")).toThrow(/built-in scenarios: social/);
  });

  it("keeps the JSON Schema file in step with the zod schema", () => {
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(schemaFileText());
  });

  it("matches deeplinks with path and query captures", () => {
    expect(matchDeeplink("loop://search?q={q}", "loop://search?q=mobile%20AI%20agents")).toEqual({ q: "mobile AI agents" });
    expect(matchDeeplink("sms:{to}", "sms:Bob")).toEqual({ to: "Bob" });
    expect(matchDeeplink("loop://search?q={q}", "loop://home")).toBeNull();
  });
});
