// Replays and shares over real HTTP and Postgres: a run's steps in pages with their screenshot, point, timings and
// cost; a reviewer's grade; the secret scan before a link is made; and what the link shows — the text typed into a
// password field masked everywhere, the field boxed over on the screenshot — until it is revoked.
import sharp from "sharp";
import superjson from "superjson";
import { beforeAll, describe, expect, it } from "vitest";
import { appendEvidence, appendStep, createGoal, putBlob, registerAgent, startRun, type Page, type ReplayStep, type RunReplay } from "@phoneloop/state";
import { rid, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "../use-api-server.ts";
import { signUpMember } from "../auth/testing.ts";
import { scanText } from "./secret-scan.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let cookies: Record<"admin" | "approver" | "viewer", string>;
let runId: string;
let screenSha: string;
let approverId: string;
const PASSWORD = "hunter22";

async function call<T>(path: string, input: unknown, cookie?: string, mutation = false): Promise<{ status: number; data: T; message?: string }> {
  const body = JSON.stringify(superjson.serialize(input));
  const headers: Record<string, string> = cookie ? { cookie } : {};
  const res = mutation
    ? await fetch(`${api.url}/trpc/${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body })
    : await fetch(`${api.url}/trpc/${path}?input=${encodeURIComponent(body)}`, { headers });
  const json = (await res.json()) as { result?: { data: { json: unknown; meta?: unknown } }; error?: { json: { message: string } } };
  return { status: res.status, data: (json.result ? superjson.deserialize(json.result.data as never) : undefined) as T, message: json.error?.json.message };
}

beforeAll(async () => {
  const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin", name: "Ada Admin" });
  const ws = admin.workspaceId;
  const approver = await signUpMember({ db: t.db, auth: api.auth }, { role: "approver", workspaceId: ws, name: "Rita Reviewer" });
  const viewer = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: ws });
  cookies = { admin: admin.headers.cookie!, approver: approver.headers.cookie!, viewer: viewer.headers.cookie! };
  approverId = approver.userId;

  const goal = await createGoal(t.db, { workspaceId: ws, title: "Log in", objective: `Log in with username agent_tester and password ${PASSWORD}.` });
  const agent = await registerAgent(t.db, { id: rid("agent"), name: "Pixel tab", kind: "browser", workspaceId: ws });
  runId = (await startRun(t.db, { goalId: goal.id, agentId: agent.id })).id;
  // A white 200×400 screen; the password field spans x 100–900, y 100–200 (0–1000).
  const png = await sharp({ create: { width: 200, height: 400, channels: 3, background: "#ffffff" } }).jpeg().toBuffer();
  screenSha = (await putBlob(t.db, { bytes: new Uint8Array(png), mime: "image/jpeg", workspaceId: ws })).sha256;
  const elements = [
    { i: 1, text: "agent_tester", id: "username", box: [100, 20, 900, 80] },
    { i: 2, text: "••••••••", id: "field_b", box: [100, 100, 900, 200], password: true },
  ];
  const screens = [
    { action: { type: "click_then_type", x: 500, y: 150, text: PASSWORD, thought: `Type the password ${PASSWORD} into the field.` }, px: { x: 100, y: 60 } },
    { action: { type: "click", x: 500, y: 50 }, px: { x: 100, y: 20 } },
    { action: { type: "input_text", text: "Call +1 415 555 2671 or mail ops@example.com, card 4111 1111 1111 1111, key sk-abcdefghijklmnopqrstuv" }, px: null },
  ];
  for (const [index, s] of screens.entries()) {
    const key = `${runId}:${index}`;
    await appendEvidence(t.db, { goalId: goal.id, runId, stepIndex: index, kind: "observation", summary: "login screen", blobSha256: screenSha, data: { app: "com.example.social", screen: { width: 200, height: 400 }, elements }, idempotencyKey: `${key}:obs` });
    await appendEvidence(t.db, { goalId: goal.id, runId, stepIndex: index, kind: "model_call", summary: "executor", data: { role: "executor", model: "m", inputTokens: 100 + index, outputTokens: 20, microUsd: 50, latencyMs: 90, via: "api" }, idempotencyKey: `${key}:model` });
    await appendEvidence(t.db, { goalId: goal.id, runId, stepIndex: index, kind: "action", summary: s.action.type, data: { action: s.action, px: s.px }, idempotencyKey: `${key}:act` });
    await appendStep(t.db, {
      runId, agentId: agent.id, index, node: "executor", action: s.action, anomalies: index === 2 ? ["no_change"] : [], tokens: 120 + index,
      outcome: { outcome: "ok", app: "com.example.social", timings: { sense: 10, ask_model: 120, model: 100, perform: 30, writeback: 5 }, replies: [JSON.stringify(s.action)] },
    });
  }
  await appendEvidence(t.db, { goalId: goal.id, runId, kind: "summary", summary: "done", data: { goal: "Log in", status: "completed", endReason: "all_done", executed: [], findings: [], blocked: [], conclusion: "Logged in.", outputs: {}, totals: { steps: 3, modelCalls: 3, inputTokens: 303, outputTokens: 60, microUsd: 150, promptTokensCounted: 0 }, lessons: [] }, idempotencyKey: `${runId}:summary` });
});

describe("secret scan", () => {
  it("finds keys, tokens, cards (Luhn), phone numbers and e-mail addresses, and not an order number", () => {
    const kinds = (s: string) => scanText(s).map((f) => f.kind);
    expect(kinds("key sk-proj-abcdefghijklmnop1234")).toEqual(["key"]);
    expect(kinds("token ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toEqual(["token"]);
    expect(kinds("card 4111-1111-1111-1111")).toEqual(["card_number"]);
    expect(kinds("order 4111 1111 1111 1112")).not.toContain("card_number");
    expect(kinds("call +44 20 7946 0958 today")).toEqual(["phone_number"]);
    expect(kinds("write to jane.doe@example.org")).toEqual(["email"]);
    expect(kinds("Search Loop for mobile AI agents")).toEqual([]);
  });
});

describe("run replay", () => {
  it("pages the steps with their screenshot, point, timings, tokens and cost", async () => {
    const first = await call<Page<ReplayStep>>("run.steps", { runId, limit: 2 }, cookies.viewer);
    expect(first.status).toBe(200);
    expect(first.data.items.map((s) => s.index)).toEqual([0, 1]);
    expect(first.data.nextCursor).toBeTruthy();
    const rest = await call<Page<ReplayStep>>("run.steps", { runId, limit: 2, cursor: first.data.nextCursor }, cookies.viewer);
    expect(rest.data.items.map((s) => s.index)).toEqual([2]);
    expect(rest.data.nextCursor).toBeNull();
    const s0 = first.data.items[0]!;
    expect(s0.screen).toMatchObject({ sha256: screenSha, mime: "image/jpeg", width: 200, height: 400 });
    expect(s0.point).toEqual({ x: 500, y: 150 });
    expect(s0.timings).toEqual({ sense: 10, model: 100, act: 30, writes: 25 });
    expect(s0.modelCalls[0]).toMatchObject({ inputTokens: 100, outputTokens: 20, microUsd: 50 });
    expect(s0.replies).toHaveLength(1);
    expect(rest.data.items[0]!.anomalies.map((a) => a.summary)).toEqual(["no_change"]);

    const replay = await call<RunReplay>("run.replay", { runId }, cookies.viewer);
    expect(replay.data.stepCount).toBe(3);
    expect(replay.data.totals).toEqual({ modelCalls: 3, inputTokens: 303, outputTokens: 60, microUsd: 150 });
    expect(replay.data.report).toMatchObject({ conclusion: "Logged in.", status: "completed" });
  });

  it("a reviewer grades the run; the grade names who gave it; a viewer may not grade", async () => {
    expect((await call("run.grade", { runId, grade: "D", note: "no" }, cookies.viewer, true)).status).toBe(403);
    expect((await call("run.grade", { runId, grade: "E" }, cookies.approver, true)).status).toBe(400);
    expect((await call("run.grade", { runId, grade: "B", note: "Asked one extra question." }, cookies.approver, true)).status).toBe(200);
    const { data } = await call<RunReplay>("run.replay", { runId }, cookies.viewer);
    expect(data.run).toMatchObject({ grade: "B", gradeNote: "Asked one extra question.", gradedBy: { name: "Rita Reviewer" } });
  });
});

describe("sharing a run", () => {
  it("the scan shows what the run would reveal before a link is made", async () => {
    const scan = await call<{ findings: { kind: string; where: string; masked: boolean }[]; maskedTexts: number; maskedScreens: number }>("share.scan", { runId }, cookies.admin);
    expect(scan.status).toBe(200);
    const kinds = new Set(scan.data.findings.map((f) => f.kind));
    for (const k of ["password", "phone_number", "email", "card_number", "key"]) expect(kinds).toContain(k);
    expect(scan.data.findings.find((f) => f.kind === "password")).toMatchObject({ where: "step 1 · typed into a password field", masked: true });
    expect(scan.data.maskedTexts).toBe(1);
    expect(scan.data.maskedScreens).toBe(3);
    expect(JSON.stringify(scan.data)).not.toContain(PASSWORD);
    expect((await call("share.scan", { runId }, cookies.viewer)).status).toBe(403);
  });

  it("the link shows the grade and when it was given, not who gave it nor the reviewer's note", async () => {
    const NOTE = "Rita: the login asked for Ada's second factor";
    expect((await call("run.grade", { runId, grade: "C", note: NOTE }, cookies.approver, true)).status).toBe(200);
    const created = await call<{ token: string }>("share.create", { runId }, cookies.admin, true);
    const open = await call<RunReplay>("share.open", { token: created.data.token });
    expect(open.data.run).toMatchObject({ grade: "C", gradedBy: null, gradeNote: null });
    expect(open.data.run.gradedAt).toBeInstanceOf(Date);
    const shown = JSON.stringify(open.data);
    for (const identity of ["Rita Reviewer", approverId, NOTE]) expect(shown).not.toContain(identity);
    // A member sees who graded, and the note.
    expect((await call<RunReplay>("run.replay", { runId }, cookies.admin)).data.run).toMatchObject({ gradeNote: NOTE, gradedBy: { id: approverId, name: "Rita Reviewer" } });
  });

  it("the link shows every step with the password masked in text and boxed over on the screen; revoked, it is 404", async () => {
    const created = await call<{ token: string; share: { id: string } }>("share.create", { runId }, cookies.admin, true);
    const token = created.data.token;
    const open = await call<RunReplay>("share.open", { token });
    expect(open.status).toBe(200);
    expect(open.data.stepCount).toBe(3);
    const steps = await call<Page<ReplayStep>>("share.steps", { token });
    expect(steps.data.items.map((s) => s.screen?.sha256)).toEqual([screenSha, screenSha, screenSha]);
    const shown = JSON.stringify([open.data, steps.data]);
    expect(shown).not.toContain(PASSWORD);
    expect(shown).toContain("Type the password •••••• into the field.");
    // A member still sees what was typed.
    expect(JSON.stringify((await call("run.steps", { runId }, cookies.admin)).data)).toContain(PASSWORD);

    const original = await (await fetch(`${api.url}/blobs/${screenSha}`, { headers: { cookie: cookies.admin } })).arrayBuffer();
    const res = await fetch(`${api.url}/blobs/${screenSha}?share=${encodeURIComponent(token)}`);
    expect(res.status).toBe(200);
    const masked = Buffer.from(await res.arrayBuffer());
    expect(masked.equals(Buffer.from(original))).toBe(false);
    const { data: px, info } = await sharp(masked).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => px[(y * info.width + x) * info.channels]!;
    expect(at(100, 60)).toBeLessThan(60); // inside the password field (x 20–180, y 40–80)
    expect(at(100, 20)).toBeGreaterThan(200); // the username field stays as it was
    expect(at(100, 300)).toBeGreaterThan(200);

    expect((await call("share.revoke", { shareId: created.data.share.id }, cookies.admin, true)).status).toBe(200);
    expect((await call("share.open", { token })).status).toBe(404);
    expect((await call("share.steps", { token })).status).toBe(404);
    expect((await fetch(`${api.url}/blobs/${screenSha}?share=${encodeURIComponent(token)}`)).status).toBe(404);
  });
});
