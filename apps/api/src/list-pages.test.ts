// The lists that answered plain arrays now answer pages `{ items, nextCursor }` like every other list: over HTTP, as a
// member, a list longer than one page is read completely, each row once and in the list's order (rows sharing a
// timestamp tie-broken by id), by following nextCursor; a limit over 500 is a 400 naming the field.
import { beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import { addLessons, registerAgent, saveShortcuts, saveSkill, startRun, createGoal, PAGE_LIMIT, type Page } from "@phoneloop/state";
import { manualClock, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { signUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let viewer: Record<string, string>;
let ws: string;

beforeAll(async () => {
  const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  ws = admin.workspaceId;
  viewer = (await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: ws })).headers;
});

async function query(path: string, input: unknown): Promise<{ status: number; body: { result?: { data: unknown }; error?: { json: { message: string; data: { issues?: { path: string }[] } } } } }> {
  const url = `${api.url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`;
  const res = await fetch(url, { headers: viewer });
  return { status: res.status, body: (await res.json()) as never };
}

/** Every page of a list through the API, following nextCursor. */
async function readAll<T>(path: string, input: Record<string, unknown>, limit: number): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let pages = 0;
  for (let cursor: string | undefined; ; ) {
    const { status, body } = await query(path, { ...input, limit, ...(cursor ? { cursor } : {}) });
    expect(status, JSON.stringify(body)).toBe(200);
    const page = superjson.deserialize(body.result!.data as never) as Page<T>;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    pages++;
    items.push(...page.items);
    if (page.nextCursor === null) return { items, pages };
    cursor = page.nextCursor;
  }
}

/** Newest first by `at`, ties by id: the order these lists promise. */
const newestFirst = <T extends { id: string }>(rows: T[], at: (r: T) => Date) =>
  [...rows].sort((a, b) => at(b).getTime() - at(a).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) => r.id);

describe("every list is a page", () => {
  // Two rows per instant, so the id breaks ties.
  const clock = manualClock(Date.now() - 600_000);
  const tick = () => clock.advance(1000);

  it("agent.list: the workspace's agents, newest registered first, across pages", async () => {
    for (let k = 0; k < 7; k++) {
      await registerAgent(t.db, { id: `agent_page_${k}_${ws}`, workspaceId: ws, name: `worker ${k}`, kind: "headless" }, { clock });
      if (k % 2) tick();
    }
    const { items, pages } = await readAll<{ id: string }>("agent.list", {}, 3);
    expect(pages).toBe(3);
    const rows = await t.db.agent.findMany({ where: { workspaceId: ws }, select: { id: true, createdAt: true } });
    expect(items.map((a) => a.id)).toEqual(newestFirst(rows, (r) => r.createdAt));
    expect(rows).toHaveLength(7);
  });

  it("goal.runs: a goal's runs, newest first, across pages", async () => {
    const goal = await createGoal(t.db, { workspaceId: ws, title: "Many runs", objective: "Run often" });
    const agent = await registerAgent(t.db, { id: `agent_runs_${ws}`, workspaceId: ws, name: "runner", kind: "headless" });
    for (let k = 0; k < 5; k++) {
      await startRun(t.db, { goalId: goal.id, agentId: agent.id }, { clock });
      if (k % 2) tick();
    }
    const { items, pages } = await readAll<{ id: string }>("goal.runs", { goalId: goal.id }, 2);
    expect(pages).toBe(3);
    const rows = await t.db.run.findMany({ where: { goalId: goal.id }, select: { id: true, startedAt: true } });
    expect(items.map((r) => r.id)).toEqual(newestFirst(rows, (r) => r.startedAt));
  });

  it("a null cursor (what an infinite query sends for its first page) asks for the first page: run.steps of a run with no steps, goal.runs", async () => {
    const goal = await createGoal(t.db, { workspaceId: ws, title: "No steps yet", objective: "Open the replay" });
    const agent = await registerAgent(t.db, { id: `agent_nosteps_${ws}`, workspaceId: ws, name: "runner", kind: "headless" });
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id }, { clock });
    const steps = await query("run.steps", { runId: run.id, limit: 50, cursor: null });
    expect(steps.status, JSON.stringify(steps.body)).toBe(200);
    expect(superjson.deserialize(steps.body.result!.data as never)).toEqual({ items: [], nextCursor: null });
    const runs = await query("goal.runs", { goalId: goal.id, limit: 50, cursor: null });
    expect(runs.status, JSON.stringify(runs.body)).toBe(200);
    expect((superjson.deserialize(runs.body.result!.data as never) as Page<{ id: string }>).items.map((r) => r.id)).toEqual([run.id]);
  });

  it("skill.list and lesson.list: newest first across pages; shortcut.list by app, version and URI", async () => {
    for (let k = 0; k < 5; k++) {
      await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: `skill ${k}`, goal: "g", body: { k }, runId: `run_${k}` }, { clock });
      if (k % 2) tick();
    }
    const skills = await readAll<{ id: string }>("skill.list", { app: "com.loop" }, 2);
    expect(skills.pages).toBe(3);
    const skillRows = await t.db.skill.findMany({ where: { workspaceId: ws }, select: { id: true, createdAt: true } });
    expect(skills.items.map((s) => s.id)).toEqual(newestFirst(skillRows, (r) => r.createdAt));

    for (let k = 0; k < 3; k++) {
      await addLessons(t.db, { workspaceId: ws, app: "com.loop", goal: "g", runId: `run_${k}`, lessons: [0, 1].map((n) => ({ kind: "worked" as const, text: `lesson ${k}.${n}` })) }, { clock });
      tick();
    }
    const lessons = await readAll<{ id: string }>("lesson.list", { app: "com.loop" }, 4);
    expect(lessons.pages).toBe(2);
    const lessonRows = await t.db.lesson.findMany({ where: { workspaceId: ws }, select: { id: true, createdAt: true } });
    expect(lessonRows).toHaveLength(6);
    expect(lessons.items.map((l) => l.id)).toEqual(newestFirst(lessonRows, (r) => r.createdAt));

    await saveShortcuts(t.db, { workspaceId: ws, app: "com.shop", appVersion: "2.0", shortcuts: ["shop://e", "shop://a", "shop://c"].map((uri) => ({ uri, activity: "com.shop/.Main" })) });
    await saveShortcuts(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", shortcuts: ["loop://b", "loop://a"].map((uri) => ({ uri, activity: "com.loop/.Main" })) });
    const shortcuts = await readAll<{ app: string; uri: string }>("shortcut.list", {}, 2);
    expect(shortcuts.pages).toBe(3);
    expect(shortcuts.items.map((s) => s.uri)).toEqual(["loop://a", "loop://b", "shop://a", "shop://c", "shop://e"]);
  });

  it("a limit over 500 is a 400 naming the field, on each of them", async () => {
    const goal = await createGoal(t.db, { workspaceId: ws, title: "Limits", objective: "Ask too much" });
    for (const [path, input] of [["agent.list", {}], ["goal.runs", { goalId: goal.id }], ["skill.list", {}], ["shortcut.list", {}], ["lesson.list", {}]] as const) {
      const { status, body } = await query(path, { ...input, limit: PAGE_LIMIT.max + 1 });
      expect(status, path).toBe(400);
      expect(body.error!.json.data.issues?.map((i) => i.path), path).toEqual(["limit"]);
      expect(body.error!.json.message, path).toMatch(/limit/);
    }
  });

  it("a cursor the list did not make is a 400 naming the cursor, on each of them; the longest shortcut cursor is taken back", async () => {
    const goal = await createGoal(t.db, { workspaceId: ws, title: "Cursors", objective: "Page on" });
    for (const [path, input] of [["agent.list", {}], ["goal.runs", { goalId: goal.id }], ["skill.list", {}], ["shortcut.list", {}], ["lesson.list", {}]] as const) {
      for (const cursor of [goal.id, Buffer.from(JSON.stringify([1, 2, 3, 4, 5])).toString("base64url")]) {
        const { status, body } = await query(path, { ...input, cursor });
        expect(status, path).toBe(400);
        expect(body.error!.json.data.issues?.map((i) => i.path), path).toEqual(["cursor"]);
        expect(body.error!.json.message, path).toMatch(/^cursor: .*pass back a nextCursor/);
      }
    }

    const [app, appVersion] = ["a".repeat(500), "v".repeat(500)];
    const uris = ["x", "y", "z"].map((c) => `long:${c.repeat(1995)}`);
    await saveShortcuts(t.db, { workspaceId: ws, app, appVersion, shortcuts: uris.map((uri) => ({ uri, activity: "com.long/.Main" })) });
    const long = await readAll<{ uri: string }>("shortcut.list", { app, appVersion }, 1);
    expect(long.items.map((s) => s.uri)).toEqual(uris);
  });
});
