// One authorization point, tested as a table: EVERY procedure of the router (walked, so a new one cannot be missed)
// × every kind of caller — anonymous, a share link, each role, an agent token, and an admin of ANOTHER workspace.
// A caller the procedure's declared permission allows succeeds on real input; anonymous gets 401, a role without
// the permission 403; the other workspace's admin gets 404 for every row of this workspace the input names.
// Every principal comes through the real path: people signed up with better-auth and resolved from their session
// cookie, the agent from its bearer token, the share from its link's token (resolvePrincipal).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError, type AnyProcedure } from "@trpc/server";
import {
  appendEvidence,
  blockTodo,
  claimTodo,
  createShare,
  holds,
  issueAgentToken,
  PERMISSIONS,
  putBlob,
  registerAgent,
  saveSkill,
  saveShortcuts,
  addLessons,
  startRun,
  startSuiteRun,
  startTodo,
  validateTodo,
  verifyAgentToken,
  type Role,
} from "@phoneloop/state";
import { manualClock, rid, seedGate, seedGoal, seedMember, seedTodos, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { sessionReader } from "./auth/auth.ts";
import { resolvePrincipal, SHARE_HEADER, type Principal } from "./auth/principal.ts";
import { signUpMember } from "./auth/testing.ts";
import { EventHub } from "./events.ts";
import { appRouter } from "./root.ts";
import { createCallerFactory, createTRPCContext, type ProcedureMeta } from "./trpc.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let hub: EventHub;
let w: World;
let resolve: (headers: Record<string, string>) => Promise<Principal>;

interface World {
  ws: string;
  members: Record<Role, Extract<Principal, { kind: "member" }>>;
  agent: Extract<Principal, { kind: "agent" }> & { agentId: string };
  outsider: Extract<Principal, { kind: "member" }>;
}

beforeAll(async () => {
  hub = new EventHub({ databaseUrl: t.url });
  await hub.start();
  const services = { db: t.db, auth: api.auth };
  resolve = (headers) => resolvePrincipal({ db: t.db, auth: sessionReader(api.auth) }, new Headers(headers));
  const admin = await signUpMember(services, { role: "admin" });
  const ws = admin.workspaceId;
  const [approver, operator, viewer] = await Promise.all((["approver", "operator", "viewer"] as const).map((role) => signUpMember(services, { role, workspaceId: ws })));
  const member = async (m: { headers: Record<string, string> }) => (await resolve(m.headers)) as Extract<Principal, { kind: "member" }>;
  const { token } = await issueAgentToken(t.db, { workspaceId: ws, name: "Worker", issuedBy: admin.userId });
  const tokenId = (await verifyAgentToken(t.db, token))!.tokenId;
  const agentId = rid("agent");
  await registerAgent(t.db, { id: agentId, name: "Worker", kind: "headless", capabilities: ["android"], workspaceId: ws, tokenId });
  const agent = await resolve({ authorization: `Bearer ${token}` });
  const outsider = await member(await signUpMember(services, { role: "admin" }));
  w = {
    ws,
    members: { admin: await member(admin), approver: await member(approver!), operator: await member(operator!), viewer: await member(viewer!) },
    agent: agent as World["agent"],
    outsider,
  };
  for (const p of [...Object.values(w.members), w.agent, w.outsider]) expect(p.kind).not.toBe("anonymous");
  expect(w.agent).toMatchObject({ kind: "agent", agentId, workspaceId: ws });
  expect(w.outsider.workspaceId).not.toBe(ws);
});
afterAll(async () => {
  await hub?.close();
});

// ——— fresh rows of the workspace, made through the operators (as the system) ———
const A = () => w.agent.agentId;
const goal = () => seedGoal(t.db, { workspaceId: w.ws });
async function todo() {
  const g = await goal();
  const [td] = await seedTodos(t.db, g.id, 1);
  return { goalId: g.id, todoId: td!.id };
}
async function claimed() {
  const x = await todo();
  const c = await claimTodo(t.db, { agentId: A(), todoId: x.todoId });
  if (!c.claimed) throw new Error(c.reason);
  return { ...x, agentId: A(), leaseKey: c.lease.leaseKey };
}
async function running() {
  const c = await claimed();
  await startTodo(t.db, { todoId: c.todoId, agentId: c.agentId, leaseKey: c.leaseKey });
  return c;
}
async function validating() {
  const c = await running();
  await validateTodo(t.db, { todoId: c.todoId, agentId: c.agentId, leaseKey: c.leaseKey });
  return c;
}
async function run() {
  const g = await goal();
  return startRun(t.db, { goalId: g.id, agentId: A() });
}
const blob = () => putBlob(t.db, { bytes: randomBytes(16), mime: "image/png", workspaceId: w.ws });
async function sharedRun() {
  const r = await run();
  const b = await blob();
  await appendEvidence(t.db, { goalId: r.goalId, runId: r.id, kind: "observation", summary: "screen", blobSha256: b.sha256, idempotencyKey: rid("ev") });
  const { token } = await createShare(t.db, { workspaceId: w.ws, runId: r.id }, { actor: w.members.admin.userId });
  return { token, sha256: b.sha256 };
}
const skill = () => saveSkill(t.db, { workspaceId: w.ws, app: "com.loop", appVersion: "1.0", name: rid("skill"), goal: "Search Loop", body: {}, runId: rid("run") });
const shortcut = async () => (await saveShortcuts(t.db, { workspaceId: w.ws, app: rid("app"), appVersion: "1.0", shortcuts: [{ uri: "loop://home", activity: "com.loop/.Feed" }] }))[0]!;
const lesson = async () => (await addLessons(t.db, { workspaceId: w.ws, app: "com.loop", goal: "Search Loop", runId: rid("run"), lessons: [{ kind: "failed", text: rid("lesson") }] }))[0]!;
const suiteRun = () => startSuiteRun(t.db, { workspaceId: w.ws, modelProfile: "reference-policy", tasks: "*", scenarios: "pack", seeds: 1 });
const attempt = { taskId: "settings_wifi_off", seed: 1, score: 1, reason: "all 2 checks passed", steps: 3, inputTokens: 900, outputTokens: 40, costMicroUsd: 0, durationMs: 4000 };
const tokenBy = (issuedBy: string) => issueAgentToken(t.db, { workspaceId: w.ws, name: "Tab", issuedBy });

/** What an admin of another workspace gets: 404 when the input names a row here (the default), else its own. */
type Outsider = "not_found" | "ok" | "null" | "conflict";
interface Fixture {
  /** The permission the procedure must declare: this table is the spec of who may do what. */
  access: ProcedureMeta["access"];
  input: (caller: Principal) => Promise<unknown>;
  outsider?: Outsider;
}

const fixtures: Record<string, Fixture> = {
  "goal.get": { access: "read", input: async () => ({ goalId: (await goal()).id }) },
  "goal.runs": { access: "read", input: async () => ({ goalId: (await goal()).id }) },
  "goal.create": { access: "run", input: async () => ({ title: "Book a table", objective: "Friday 19:00" }), outsider: "ok" },
  "goal.update": { access: "run", input: async () => ({ goalId: (await goal()).id, version: 1, title: "Book a table for four" }) },
  "goal.pause": { access: "run", input: async () => ({ goalId: (await goal()).id }) },
  "goal.resume": { access: "run",
    input: async () => {
      const g = await goal();
      await t.db.goal.update({ where: { id: g.id }, data: { status: "paused" } });
      return { goalId: g.id };
    },
  },
  "goal.cancel": { access: "run", input: async () => ({ goalId: (await goal()).id }) },
  "goal.complete": { access: "run", input: async () => ({ goalId: (await goal()).id }) },
  "todo.list": { access: "read", input: async () => ({ goalId: (await goal()).id }) },
  "todo.add": { access: "run", input: async () => ({ goalId: (await goal()).id, todos: [{ title: "Open the app" }] }) },
  "todo.replan": { access: "run", input: async () => ({ goalId: (await goal()).id, idempotencyKey: rid("rp"), reason: "one more step", ops: [{ op: "add", todo: { title: "Pick a time" } }] }) },
  "todo.claimNext": { access: "run", input: async () => ({ agentId: A(), goalId: (await todo()).goalId }) },
  "todo.claim": { access: "run", input: async () => ({ agentId: A(), todoId: (await todo()).todoId }) },
  "todo.start": { access: "run", input: async () => pick(await claimed(), "todoId", "agentId", "leaseKey") },
  "todo.validate": { access: "run", input: async () => pick(await running(), "todoId", "agentId", "leaseKey") },
  "todo.writeback": { access: "run", input: async () => ({ ...pick(await validating(), "todoId", "agentId", "leaseKey"), values: { time: "19:00" } }) },
  "todo.complete": { access: "run", input: async () => pick(await validating(), "todoId", "agentId", "leaseKey") },
  "todo.fail": { access: "run", input: async () => ({ ...pick(await claimed(), "todoId", "agentId", "leaseKey"), reason: "the app is gone" }) },
  "todo.block": { access: "run", input: async () => ({ ...pick(await claimed(), "todoId", "agentId", "leaseKey"), reason: "needs a phone number" }) },
  "todo.retry": { access: "run", input: async () => ({ ...pick(await running(), "todoId", "agentId", "leaseKey"), result: "tap missed" }) },
  "todo.reopen": { access: "run",
    input: async () => {
      const x = await todo();
      await blockTodo(t.db, { todoId: x.todoId, reason: "needs a phone number" });
      return { todoId: x.todoId };
    },
  },
  "lease.renew": { access: "run", input: async () => pick(await claimed(), "todoId", "agentId", "leaseKey") },
  "lease.release": { access: "run", input: async () => pick(await claimed(), "todoId", "agentId", "leaseKey") },
  "lease.transfer": { access: "run",
    input: async () => {
      const other = await registerAgent(t.db, { id: rid("agent"), name: "Other", kind: "headless", capabilities: ["android"], workspaceId: w.ws });
      return { ...pick(await claimed(), "todoId", "agentId", "leaseKey"), toAgentId: other.id };
    },
  },
  "gate.get": { access: "read", input: async () => ({ gateId: (await seedGate(t.db, (await goal()).id)).id }) },
  "gate.open": { access: "run", input: async () => ({ goalId: (await goal()).id, question: "Pay the 5 EUR deposit?" }) },
  "gate.resolve": { access: "answer_gate", input: async () => ({ gateId: (await seedGate(t.db, (await goal()).id)).id, decision: "approve", rationale: "refundable" }) },
  "gate.expire": { access: "run",
    input: async () => {
      const past = { clock: manualClock(new Date(Date.now() - 3_600_000)) };
      return { gateId: (await seedGate(t.db, (await goal()).id, { ttlMs: 1_000 }, past)).id };
    },
  },
  "evidence.list": { access: "read", input: async () => ({ goalId: (await goal()).id }) },
  "evidence.byKey": { access: "read",
    input: async () => {
      const key = rid("ev");
      await appendEvidence(t.db, { goalId: (await goal()).id, kind: "observation", summary: "screen", idempotencyKey: key });
      return { idempotencyKey: key };
    },
    outsider: "null",
  },
  "evidence.append": { access: "run", input: async () => ({ goalId: (await goal()).id, kind: "observation", summary: "screen", idempotencyKey: rid("ev") }) },
  "quota.setPolicy": { access: "admin", input: async () => ({ scope: "goal", goalId: (await goal()).id, windowMs: 60_000, maxSteps: 10 }) },
  "quota.shouldRun": { access: "run", input: async () => ({ goalId: (await goal()).id, agentId: A() }) },
  "quota.spend": { access: "run", input: async () => ({ key: rid("sp"), goalId: (await goal()).id, agentId: A(), steps: 1 }) },
  // An agent registers as the agent its token is bound to; a person registers a new one.
  "agent.register": { access: "run", input: async (p) => ({ id: p.kind === "agent" ? A() : rid("agent"), name: "Pixel", kind: "headless" }), outsider: "ok" },
  "agent.heartbeat": { access: "run", input: async () => ({ agentId: A() }) },
  "run.get": { access: "read", input: async () => ({ runId: (await run()).id }) },
  "run.list": { access: "read", input: async () => ({}), outsider: "ok" },
  "run.replay": { access: "read", input: async () => ({ runId: (await run()).id }) },
  "run.steps": { access: "read", input: async () => ({ runId: (await run()).id }) },
  "run.grade": { access: "answer_gate", input: async () => ({ runId: (await run()).id, grade: "B", note: "asked twice" }) },
  "run.start": { access: "run", input: async () => ({ goalId: (await goal()).id, agentId: A() }) },
  "run.appendStep": { access: "run", input: async () => ({ runId: (await run()).id, agentId: A(), index: 0, node: "executor" }) },
  "run.recordStep": { access: "run", input: async () => ({ runId: (await run()).id, agentId: A(), checkpoint: { step: 1 } }) },
  "run.checkpoint": { access: "run", input: async () => ({ runId: (await run()).id, agentId: A(), checkpoint: { step: 1 } }) },
  "run.resume": { access: "run", input: async () => ({ runId: (await run()).id, agentId: A() }) },
  "run.finish": { access: "run", input: async () => ({ runId: (await run()).id, agentId: A(), status: "completed", endReason: "completed" }) },
  "turn.route": { access: "run", input: async () => pick(await claimed(), "todoId", "agentId") },
  "turn.result": { access: "run", input: async () => ({ ...pick(await running(), "todoId", "agentId", "leaseKey"), idempotencyKey: rid("turn"), kind: "repair_required", summary: "tap missed" }) },
  "board.get": { access: "read", input: async () => ({ goalId: (await goal()).id }) },
  "board.attention": { access: "read", input: async () => ({}), outsider: "ok" },
  "demoPhone.allowBrowser": { access: "operate", input: async () => ({}), outsider: "ok" },
  "board.history": { access: "read", input: async () => ({ goalId: (await goal()).id }) },
  "board.goals": { access: "read", input: async () => ({}), outsider: "ok" },
  "event.stream": { access: "read", input: async () => ({ goalId: (await goal()).id }) },
  "workspace.me": { access: "read", input: async () => ({}), outsider: "ok" },
  "member.list": { access: "read", input: async () => ({}), outsider: "ok" },
  "member.setRole": { access: "admin", input: async () => ({ userId: (await seedMember(t.db, "viewer", w.ws)).userId, role: "operator" }) },
  "member.remove": { access: "admin", input: async () => ({ userId: (await seedMember(t.db, "viewer", w.ws)).userId }) },
  "agentToken.mintForTab": { access: "operate", input: async () => ({}), outsider: "ok" },
  "agentToken.issue": { access: "operate", input: async () => ({ name: "Worker 2" }), outsider: "ok" },
  "agentToken.list": { access: "operate", input: async () => ({}), outsider: "ok" },
  "agentToken.listAll": { access: "admin", input: async () => ({}), outsider: "ok" },
  // One's own token; another person's is "not found" (the outsider's case).
  "agentToken.revoke": { access: "operate", input: async (p) => ({ tokenId: (await tokenBy(p.kind === "member" && p.workspaceId === w.ws ? p.userId : w.members.admin.userId)).tokenId }) },
  "agentToken.revokeAny": { access: "admin", input: async () => ({ tokenId: (await tokenBy(w.members.operator.userId)).tokenId }) },
  "invite.create": { access: "admin", input: async () => ({ role: "viewer" }), outsider: "ok" },
  "modelSettings.get": { access: "read", input: async () => ({}), outsider: "ok" },
  "modelSettings.status": { access: "read", input: async () => ({}), outsider: "ok" },
  "modelSettings.test": { access: "admin", input: async () => ({}), outsider: "ok" },
  "modelSettings.set": { access: "admin", input: async () => ({ baseUrl: "https://models.example.test/v1", apiKey: "sk-test", models: { executor: "small" } }), outsider: "ok" },
  "policy.get": { access: "read", input: async () => ({}), outsider: "ok" },
  "task.list": { access: "read", input: async () => ({}), outsider: "ok" },
  "agent.list": { access: "read", input: async () => ({}), outsider: "ok" },
  "skill.list": { access: "read", input: async () => ({ app: "com.loop" }), outsider: "ok" },
  "skill.save": { access: "run", input: async () => ({ app: "com.loop", appVersion: "1.0", name: rid("skill"), goal: "Search Loop", body: { steps: [] }, runId: rid("run") }), outsider: "ok" },
  "skill.recordUse": { access: "run", input: async () => ({ skillId: (await skill()).id, ok: true }) },
  "skill.update": { access: "run", input: async () => ({ skillId: (await skill()).id, status: "disabled" }) },
  "skill.delete": { access: "run", input: async () => ({ skillId: (await skill()).id }) },
  "shortcut.list": { access: "read", input: async () => ({}), outsider: "ok" },
  "shortcut.save": { access: "run", input: async () => ({ app: "com.loop", appVersion: "1.0", shortcuts: [{ uri: "loop://home", activity: "com.loop/.Feed" }] }), outsider: "ok" },
  "shortcut.recordValidation": { access: "run", input: async () => ({ shortcutId: (await shortcut()).id, ok: false, reason: "no feed" }) },
  "lesson.list": { access: "read", input: async () => ({ app: "com.loop" }), outsider: "ok" },
  "lesson.add": { access: "run", input: async () => ({ app: "com.loop", goal: "Search Loop", runId: rid("run"), lessons: [{ kind: "worked", text: rid("lesson") }] }), outsider: "ok" },
  "lesson.update": { access: "run", input: async () => ({ lessonId: (await lesson()).id, text: rid("lesson") }) },
  "lesson.delete": { access: "run", input: async () => ({ lessonId: (await lesson()).id }) },
  "suite.list": { access: "read", input: async () => ({}), outsider: "ok" },
  "suite.get": { access: "read", input: async () => ({ suiteRunId: (await suiteRun()).id }) },
  "suite.start": { access: "run", input: async () => ({ modelProfile: "reference-policy", tasks: "settings_*", scenarios: "pack", seeds: 3, perturbations: ["popup"] }), outsider: "ok" },
  "suite.recordAttempt": { access: "run", input: async () => ({ suiteRunId: (await suiteRun()).id, runId: (await run()).id, ...attempt }) },
  "suite.finish": { access: "run", input: async () => ({ suiteRunId: (await suiteRun()).id, status: "completed" }) },
  "policy.save": { access: "admin", input: async () => ({ rules: { words: { money: ["zahlen"] } } }), outsider: "ok" },
  "share.create": { access: "share", input: async () => ({ runId: (await run()).id }) },
  "share.revoke": { access: "share", input: async () => ({ shareId: (await createShare(t.db, { workspaceId: w.ws, runId: (await run()).id })).share.id }) },
  "share.list": { access: "share", input: async () => ({}), outsider: "ok" },
  "share.scan": { access: "share", input: async () => ({ runId: (await run()).id }) },
  "share.steps": { access: "anyone", input: async () => ({ token: (await sharedRun()).token }), outsider: "ok" },
  "share.open": { access: "anyone", input: async () => ({ token: (await sharedRun()).token }), outsider: "ok" },
};

function pick<T extends object, K extends keyof T>(o: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>).map(([path, proc]) => ({
  path,
  type: proc._def.type as "query" | "mutation" | "subscription",
  meta: proc._def.meta as ProcedureMeta | undefined,
}));

const createCaller = createCallerFactory(appRouter);

async function call(principal: Principal, path: string, input: unknown): Promise<{ ok: true; value: unknown } | { ok: false; code: string; message: string }> {
  const caller = createCaller(createTRPCContext({ services: { db: t.db, events: hub }, principal }));
  const fn = path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], caller) as (i: unknown) => Promise<unknown>;
  try {
    const value = await fn(input);
    // A subscription resolves to its stream once the middlewares passed; close it.
    if (value && typeof value === "object" && Symbol.asyncIterator in value) await (value as AsyncGenerator).return(undefined);
    return { ok: true, value };
  } catch (e) {
    if (e instanceof TRPCError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}

type CallerName = "anonymous" | "share" | Role | "agent" | "outsider";
const CALLERS: CallerName[] = ["anonymous", "share", "viewer", "approver", "operator", "admin", "agent", "outsider"];

async function principalOf(name: CallerName): Promise<Principal> {
  switch (name) {
    case "anonymous":
      return { kind: "anonymous" };
    case "share": {
      const share = await resolve({ [SHARE_HEADER]: (await sharedRun()).token });
      expect(share.kind).toBe("share");
      return share;
    }
    case "agent":
      return w.agent;
    case "outsider":
      return w.outsider;
    default:
      return w.members[name];
  }
}

/** What the table expects of one caller on one procedure. */
function expected(name: CallerName, meta: ProcedureMeta, fixture: Fixture): "ok" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "null" | "CONFLICT" {
  if (meta.access === "anyone") return "ok";
  if (name === "anonymous") return "UNAUTHORIZED";
  if (name === "share") return "UNAUTHORIZED"; // a share link reads its run through share.* and GET /blobs only
  if (name === "outsider") {
    const o = fixture.outsider ?? "not_found";
    return o === "not_found" ? "NOT_FOUND" : o === "conflict" ? "CONFLICT" : o;
  }
  return holds(name, meta.access) ? "ok" : "FORBIDDEN";
}

describe("authorization: every procedure × every caller", () => {
  it("every procedure declares a permission, and the table has real input for it", () => {
    for (const p of procedures) {
      expect(p.meta?.access, `${p.path} declares no permission: make it with allow(permission, input)`).toBeDefined();
      expect([...PERMISSIONS, "anyone"], p.path).toContain(p.meta!.access);
    }
    const declared = Object.fromEntries(procedures.map((p) => [p.path, p.meta?.access]));
    expect(declared).toEqual(Object.fromEntries(Object.entries(fixtures).map(([path, f]) => [path, f.access])));
    const missing = procedures.map((p) => p.path).filter((path) => !fixtures[path]);
    expect(missing, "procedures without a row in this table's fixtures: add one").toEqual([]);
    expect(Object.keys(fixtures).filter((f) => !procedures.some((p) => p.path === f))).toEqual([]);
  });

  for (const name of CALLERS) {
    it(`${name}: allowed calls succeed, others 401/403, another workspace's rows 404`, async () => {
      const principal = await principalOf(name);
      const rows: string[] = [];
      for (const p of procedures) {
        const fixture = fixtures[p.path];
        if (!fixture || !p.meta) continue;
        const want = expected(name, p.meta, fixture);
        const got = await call(principal, p.path, await fixture.input(principal));
        const outcome = got.ok ? (got.value === null && want === "null" ? "null" : "ok") : got.code;
        if (outcome !== want) rows.push(`${p.path} (${p.meta.access}): expected ${want}, got ${outcome}${got.ok ? "" : ` — ${got.message}`}`);
      }
      expect(rows).toEqual([]);
    });
  }
});
