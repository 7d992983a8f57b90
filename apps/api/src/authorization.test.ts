// Who may call what, walked over real HTTP: EVERY procedure of the router (walked, so a new one cannot be missed) ×
// every kind of caller — anonymous, a share link, a session of each role, an agent token issued by each role, a
// browser tab's token, a removed member's session and token, a revoked token — and an admin of ANOTHER workspace.
// The permissions table (permissions.ts) is what the API reads; the expectations here are written by hand, row by
// row, from what each procedure is for (never derived from the table): a caller is "let through" when the answer
// is neither 401 nor 403 (an input or state error after the check counts as let through). The other workspace's
// admin gets 404 for every row of this workspace the input names.
// Every principal comes through the real path: people signed up with better-auth (their session cookie), agents
// by their bearer token, the share by its link's token header.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { AnyProcedure } from "@trpc/server";
import {
  appendEvidence,
  blockTodo,
  createWebhookEndpoint,
  changeSkillStatus,
  claimTodo,
  createShare,
  issueAgentToken,
  putBlob,
  registerAgent,
  revokeAgentToken,
  saveSkill,
  saveShortcuts,
  addLessons,
  startRun,
  takeOver,
  startSuiteRun,
  startTodo,
  TAB_TOKEN_IDLE_MS,
  validateTodo,
  type Role,
} from "@phoneloop/state";
import { manualClock, rid, seedGate, seedGoal, seedMember, seedTodos, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { SHARE_HEADER } from "./auth/principal.ts";
import { callOverHttp, signUpMember, type SignedUpMember } from "./auth/testing.ts";
import { appRouter } from "./root.ts";

const t = useTestDatabase();
const api = useApiServer(t);

const CALLERS = [
  "anonymous",
  "share link",
  "viewer session",
  "approver session",
  "operator session",
  "admin session",
  "token by viewer",
  "token by approver",
  "token by operator",
  "token by admin",
  "tab token",
  "removed member's session",
  "removed member's token",
  "revoked token",
] as const;
type CallerName = (typeof CALLERS)[number];

/** What a caller is, for the fixtures: who (a member's id) and which agent it acts as. */
interface CallerInfo {
  headers: Record<string, string>;
  userId?: string;
  agentId: string;
  token: boolean;
}

let w: { ws: string; admin: SignedUpMember; operator: SignedUpMember; workerAgent: string; callers: Record<CallerName, CallerInfo>; outsider: CallerInfo };

async function tokenCaller(ws: string, issuedBy: string, tab = false): Promise<CallerInfo & { tokenId: string }> {
  const { token, tokenId } = await issueAgentToken(t.db, { workspaceId: ws, name: tab ? "Browser tab" : "Worker", issuedBy, ...(tab ? { idleTimeoutMs: TAB_TOKEN_IDLE_MS } : {}) });
  const agentId = rid("agent");
  await registerAgent(t.db, { id: agentId, name: "Worker", kind: tab ? "browser" : "headless", capabilities: ["android"], workspaceId: ws, tokenId });
  return { headers: { authorization: `Bearer ${token}` }, agentId, token: true, tokenId };
}

beforeAll(async () => {
  const services = { db: t.db, auth: api.auth };
  const admin = await signUpMember(services, { role: "admin" });
  const ws = admin.workspaceId;
  const people = {} as Record<Role, SignedUpMember>;
  people.admin = admin;
  for (const role of ["approver", "operator", "viewer"] as const) people[role] = await signUpMember(services, { role, workspaceId: ws });
  const worker = await tokenCaller(ws, admin.userId);
  const session = (m: SignedUpMember): CallerInfo => ({ headers: m.headers, userId: m.userId, agentId: worker.agentId, token: false });
  const tokens = Object.fromEntries(await Promise.all((["viewer", "approver", "operator", "admin"] as const).map(async (r) => [r, await tokenCaller(ws, people[r].userId)]))) as Record<Role, CallerInfo>;
  const tab = await tokenCaller(ws, people.operator.userId, true);
  // A member who issued a token, then was removed; and a token its issuer revoked.
  const leaver = await signUpMember(services, { role: "operator", workspaceId: ws });
  const leaversToken = await tokenCaller(ws, leaver.userId);
  const removed = await callOverHttp(api.url, "member.remove", { userId: leaver.userId }, admin.headers);
  expect(removed.status, removed.message).toBe(200);
  const revoked = await tokenCaller(ws, people.operator.userId);
  await revokeAgentToken(t.db, { workspaceId: ws, tokenId: revoked.tokenId });
  const shared = await sharedRunIn(ws, admin.userId, worker.agentId);
  const outsider = await signUpMember(services, { role: "admin" });
  w = {
    ws,
    admin,
    operator: people.operator,
    workerAgent: worker.agentId,
    callers: {
      anonymous: { headers: {}, agentId: worker.agentId, token: false },
      "share link": { headers: { [SHARE_HEADER]: shared }, agentId: worker.agentId, token: false },
      "viewer session": session(people.viewer),
      "approver session": session(people.approver),
      "operator session": session(people.operator),
      "admin session": session(people.admin),
      "token by viewer": tokens.viewer,
      "token by approver": tokens.approver,
      "token by operator": tokens.operator,
      "token by admin": tokens.admin,
      "tab token": tab,
      "removed member's session": { ...session(leaver), userId: leaver.userId },
      "removed member's token": leaversToken,
      "revoked token": revoked,
    },
    outsider: { headers: outsider.headers, userId: outsider.userId, agentId: worker.agentId, token: false },
  };
});

async function sharedRunIn(ws: string, by: string, agentId: string): Promise<string> {
  const g = await seedGoal(t.db, { workspaceId: ws });
  const r = await startRun(t.db, { goalId: g.id, agentId });
  return (await createShare(t.db, { workspaceId: ws, runId: r.id }, { actor: by })).token;
}

// ——— what each procedure lets through, by hand ———
// Columns, in CALLERS' order:
//   anonymous, share link | sessions: viewer, approver, operator, admin | tokens by: viewer, approver, operator, admin;
//   tab token (an operator's) | removed member's session, removed member's token, revoked token.
// "ok": let through (any answer but 401/403); 401: who calls is unknown; 403: known, and not allowed.
const EVERYONE_READS = "401 401 | ok ok ok ok | ok ok ok ok ok | 401 401 401";
const AGENTS_AND_RUNNERS = "401 401 | 403 403 ok ok | 403 403 ok ok ok | 401 401 401";
const PEOPLE_WHO_RUN = "401 401 | 403 403 ok ok | 403 403 403 403 403 | 401 401 401";
const PEOPLE_WHO_ANSWER = "401 401 | 403 ok 403 ok | 403 403 403 403 403 | 401 401 401";
const ADMINS = "401 401 | 403 403 403 ok | 403 403 403 403 403 | 401 401 401";
const ANYONE = "ok ok | ok ok ok ok | ok ok ok ok ok | ok ok ok";

const EXPECTED: Record<string, string> = {
  "goal.get": EVERYONE_READS,
  "goal.runs": EVERYONE_READS,
  "goal.create": AGENTS_AND_RUNNERS,
  "goal.update": PEOPLE_WHO_RUN,
  "goal.pause": AGENTS_AND_RUNNERS,
  "goal.resume": PEOPLE_WHO_RUN,
  "goal.cancel": PEOPLE_WHO_RUN,
  "goal.complete": PEOPLE_WHO_RUN,
  "todo.list": EVERYONE_READS,
  "todo.add": AGENTS_AND_RUNNERS,
  "todo.replan": AGENTS_AND_RUNNERS,
  "todo.claimNext": AGENTS_AND_RUNNERS,
  "todo.claim": AGENTS_AND_RUNNERS,
  "todo.start": AGENTS_AND_RUNNERS,
  "todo.validate": AGENTS_AND_RUNNERS,
  "todo.writeback": AGENTS_AND_RUNNERS,
  "todo.complete": AGENTS_AND_RUNNERS,
  "todo.fail": AGENTS_AND_RUNNERS,
  "todo.block": AGENTS_AND_RUNNERS,
  "todo.retry": AGENTS_AND_RUNNERS,
  "todo.reopen": AGENTS_AND_RUNNERS,
  "lease.renew": AGENTS_AND_RUNNERS,
  "lease.release": AGENTS_AND_RUNNERS,
  "lease.transfer": AGENTS_AND_RUNNERS,
  "gate.get": EVERYONE_READS,
  "gate.open": AGENTS_AND_RUNNERS,
  "gate.resolve": PEOPLE_WHO_ANSWER,
  "gate.expire": AGENTS_AND_RUNNERS,
  "gate.decideBatch": PEOPLE_WHO_ANSWER,
  "evidence.list": EVERYONE_READS,
  "evidence.byKey": EVERYONE_READS,
  "evidence.append": AGENTS_AND_RUNNERS,
  "quota.setPolicy": ADMINS,
  "quota.shouldRun": AGENTS_AND_RUNNERS,
  "quota.spend": AGENTS_AND_RUNNERS,
  "agent.register": AGENTS_AND_RUNNERS,
  "agent.list": EVERYONE_READS,
  "agent.heartbeat": AGENTS_AND_RUNNERS,
  "run.list": EVERYONE_READS,
  "run.replay": EVERYONE_READS,
  "run.steps": EVERYONE_READS,
  "run.grade": PEOPLE_WHO_ANSWER,
  "run.get": EVERYONE_READS,
  "run.start": AGENTS_AND_RUNNERS,
  "run.appendStep": AGENTS_AND_RUNNERS,
  "run.recordStep": AGENTS_AND_RUNNERS,
  "run.checkpoint": AGENTS_AND_RUNNERS,
  "run.resume": AGENTS_AND_RUNNERS,
  "run.finish": AGENTS_AND_RUNNERS,
  "run.takeOver": PEOPLE_WHO_RUN,
  "run.recordPersonStep": PEOPLE_WHO_RUN,
  "run.handBack": PEOPLE_WHO_RUN,
  "turn.route": AGENTS_AND_RUNNERS,
  "turn.result": AGENTS_AND_RUNNERS,
  "board.get": EVERYONE_READS,
  "board.attention": EVERYONE_READS,
  "board.history": EVERYONE_READS,
  "board.goals": EVERYONE_READS,
  "event.stream": EVERYONE_READS,
  "workspace.me": EVERYONE_READS,
  "member.list": EVERYONE_READS,
  "member.setRole": ADMINS,
  "member.remove": ADMINS,
  "agentToken.mintForTab": PEOPLE_WHO_RUN,
  "agentToken.issue": PEOPLE_WHO_RUN,
  "agentToken.list": PEOPLE_WHO_RUN,
  "agentToken.listAll": ADMINS,
  "agentToken.revoke": PEOPLE_WHO_RUN,
  "agentToken.revokeAny": ADMINS,
  "agentToken.reassign": ADMINS,
  "share.create": PEOPLE_WHO_RUN,
  "share.revoke": PEOPLE_WHO_RUN,
  "share.list": PEOPLE_WHO_RUN,
  "share.scan": PEOPLE_WHO_RUN,
  "share.open": ANYONE,
  "share.steps": ANYONE,
  "invite.create": ADMINS,
  "modelSettings.get": EVERYONE_READS,
  "modelSettings.status": EVERYONE_READS,
  "modelSettings.presets": EVERYONE_READS,
  "modelSettings.set": ADMINS,
  "modelSettings.test": ADMINS,
  "modelSettings.checkGrounding": ADMINS,
  "demoPhone.allowBrowser": PEOPLE_WHO_RUN,
  "policy.get": EVERYONE_READS,
  "policy.save": ADMINS,
  "approvalRule.list": ADMINS,
  "approvalRule.set": ADMINS,
  "wipLimits.get": EVERYONE_READS,
  "wipLimits.set": ADMINS,
  "notification.channels": EVERYONE_READS,
  "notification.endpoints": ADMINS,
  "notification.createEndpoint": ADMINS,
  "notification.deleteEndpoint": ADMINS,
  "notification.sendTest": ADMINS,
  "notification.deliveries": ADMINS,
  "notification.subscribePush": PEOPLE_WHO_ANSWER,
  "notification.unsubscribePush": PEOPLE_WHO_ANSWER,
  "notification.pushStatus": PEOPLE_WHO_ANSWER,
  "suite.list": EVERYONE_READS,
  "suite.get": EVERYONE_READS,
  "suite.start": AGENTS_AND_RUNNERS,
  "suite.recordAttempt": AGENTS_AND_RUNNERS,
  "suite.finish": AGENTS_AND_RUNNERS,
  "skill.list": EVERYONE_READS,
  "skill.versions": EVERYONE_READS,
  "skill.save": AGENTS_AND_RUNNERS,
  "skill.recordUse": AGENTS_AND_RUNNERS,
  "skill.update": PEOPLE_WHO_RUN,
  "skill.disable": PEOPLE_WHO_RUN,
  "skill.enable": PEOPLE_WHO_RUN,
  "skill.approve": PEOPLE_WHO_RUN,
  "skill.delete": PEOPLE_WHO_RUN,
  "shortcut.list": EVERYONE_READS,
  "shortcut.save": AGENTS_AND_RUNNERS,
  "shortcut.recordValidation": AGENTS_AND_RUNNERS,
  "lesson.list": EVERYONE_READS,
  "lesson.add": AGENTS_AND_RUNNERS,
  "lesson.update": PEOPLE_WHO_RUN,
  "lesson.delete": PEOPLE_WHO_RUN,
  "task.list": EVERYONE_READS,
};

function expectationOf(path: string, caller: CallerName): "ok" | "401" | "403" {
  const row = EXPECTED[path]!.replaceAll("|", " ").trim().split(/\s+/);
  expect(row, `${path}: one expectation per caller`).toHaveLength(CALLERS.length);
  return row[CALLERS.indexOf(caller)] as "ok" | "401" | "403";
}

// ——— fresh rows of the workspace, made through the operators (as the system) ———
/** The agent the current caller acts as: its own with an agent token, else the workspace's worker. */
let actingAgent = "";
const A = () => actingAgent;
const goal = () => seedGoal(t.db, { workspaceId: w.ws });
const endpoint = () => createWebhookEndpoint(t.db, { workspaceId: w.ws, url: "https://hooks.example.com/x", format: "generic", kinds: ["gate_opened"], secretSealed: "v1.sealed-for-the-test" });
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
/** A running run taken over; the takeover is the caller's (a person's steps and hand back are the taker's). */
async function takenOver(caller: CallerInfo) {
  const c = await running();
  const r = await startRun(t.db, { goalId: c.goalId, todoId: c.todoId, agentId: c.agentId });
  const { gateId } = await takeOver(t.db, { runId: r.id, userId: w.operator.userId });
  if (caller.userId) await t.db.gate.update({ where: { id: gateId }, data: { takenBy: caller.userId } });
  const [before, after] = await Promise.all([blob(), blob()]);
  return { runId: r.id, gateId, beforeSha256: before.sha256, afterSha256: after.sha256 };
}
async function sharedRun() {
  const r = await run();
  const b = await blob();
  await appendEvidence(t.db, { goalId: r.goalId, runId: r.id, kind: "observation", summary: "screen", blobSha256: b.sha256, idempotencyKey: rid("ev") });
  const { token } = await createShare(t.db, { workspaceId: w.ws, runId: r.id }, { actor: w.admin.userId });
  return { token, sha256: b.sha256 };
}
const skill = () => saveSkill(t.db, { workspaceId: w.ws, app: "com.loop", appVersion: "1.0", name: rid("skill"), goal: "Search Loop", body: {}, runId: rid("run") });
const disabledSkill = async () => changeSkillStatus(t.db, { workspaceId: w.ws, skillId: (await skill()).id, change: "disable" });
const shortcut = async () => (await saveShortcuts(t.db, { workspaceId: w.ws, app: rid("app"), appVersion: "1.0", shortcuts: [{ uri: "loop://home", activity: "com.loop/.Feed" }] }))[0]!;
const lesson = async () => (await addLessons(t.db, { workspaceId: w.ws, app: "com.loop", goal: "Search Loop", runId: rid("run"), lessons: [{ kind: "failed", text: rid("lesson") }] }))[0]!;
const suiteRun = () => startSuiteRun(t.db, { workspaceId: w.ws, modelProfile: "reference-policy", tasks: "*", scenarios: "pack", seeds: 1 });
const attempt = { taskId: "settings_wifi_off", seed: 1, score: 1, reason: "all 2 checks passed", steps: 3, inputTokens: 900, outputTokens: 40, costMicroUsd: 0, durationMs: 4000 };
const tokenBy = (issuedBy: string) => issueAgentToken(t.db, { workspaceId: w.ws, name: "Tab", issuedBy });

/** What an admin of another workspace gets: 404 when the input names a row here (the default), else its own. */
type Outsider = "not_found" | "ok" | "null" | "conflict";
interface Fixture {
  input: (caller: CallerInfo) => Promise<unknown>;
  outsider?: Outsider;
}

const fixtures: Record<string, Fixture> = {
  "goal.get": { input: async () => ({ goalId: (await goal()).id }) },
  "goal.runs": { input: async () => ({ goalId: (await goal()).id }) },
  "goal.create": { input: async () => ({ title: "Book a table", objective: "Friday 19:00" }), outsider: "ok" },
  "goal.update": { input: async () => ({ goalId: (await goal()).id, version: 1, title: "Book a table for four" }) },
  "goal.pause": { input: async () => ({ goalId: (await goal()).id }) },
  "goal.resume": { input: async () => {
      const g = await goal();
      await t.db.goal.update({ where: { id: g.id }, data: { status: "paused" } });
      return { goalId: g.id };
    },
  },
  "goal.cancel": { input: async () => ({ goalId: (await goal()).id }) },
  "goal.complete": { input: async () => ({ goalId: (await goal()).id }) },
  "todo.list": { input: async () => ({ goalId: (await goal()).id }) },
  "todo.add": { input: async () => ({ goalId: (await goal()).id, todos: [{ title: "Open the app" }] }) },
  "todo.replan": { input: async () => ({ goalId: (await goal()).id, idempotencyKey: rid("rp"), reason: "one more step", ops: [{ op: "add", todo: { title: "Pick a time" } }] }) },
  "todo.claimNext": { input: async () => ({ agentId: A(), goalId: (await todo()).goalId }) },
  "todo.claim": { input: async () => ({ agentId: A(), todoId: (await todo()).todoId }) },
  "todo.start": { input: async () => pick(await claimed(), "todoId", "agentId", "leaseKey") },
  "todo.validate": { input: async () => pick(await running(), "todoId", "agentId", "leaseKey") },
  "todo.writeback": { input: async () => ({ ...pick(await validating(), "todoId", "agentId", "leaseKey"), values: { time: "19:00" } }) },
  "todo.complete": { input: async () => pick(await validating(), "todoId", "agentId", "leaseKey") },
  "todo.fail": { input: async () => ({ ...pick(await claimed(), "todoId", "agentId", "leaseKey"), reason: "the app is gone" }) },
  "todo.block": { input: async () => ({ ...pick(await claimed(), "todoId", "agentId", "leaseKey"), reason: "needs a phone number" }) },
  "todo.retry": { input: async () => ({ ...pick(await running(), "todoId", "agentId", "leaseKey"), result: "tap missed" }) },
  "todo.reopen": { input: async () => {
      const x = await todo();
      await blockTodo(t.db, { todoId: x.todoId, reason: "needs a phone number" });
      return { todoId: x.todoId };
    },
  },
  "lease.renew": { input: async () => pick(await claimed(), "todoId", "agentId", "leaseKey") },
  "lease.release": { input: async () => pick(await claimed(), "todoId", "agentId", "leaseKey") },
  "lease.transfer": { input: async () => {
      const other = await registerAgent(t.db, { id: rid("agent"), name: "Other", kind: "headless", capabilities: ["android"], workspaceId: w.ws });
      return { ...pick(await claimed(), "todoId", "agentId", "leaseKey"), toAgentId: other.id };
    },
  },
  "gate.get": { input: async () => ({ gateId: (await seedGate(t.db, (await goal()).id)).id }) },
  "gate.open": { input: async () => ({ goalId: (await goal()).id, question: "Pay the 5 EUR deposit?" }) },
  "gate.resolve": { input: async () => ({ gateId: (await seedGate(t.db, (await goal()).id)).id, decision: "approve", rationale: "refundable" }) },
  "gate.expire": { input: async () => {
      const past = { clock: manualClock(new Date(Date.now() - 3_600_000)) };
      return { gateId: (await seedGate(t.db, (await goal()).id, { ttlMs: 1_000 }, past)).id };
    },
  },
  "gate.decideBatch": { input: async () => {
      const policy = { ruleId: "pane.amount", evidence: ["Pay 5 EUR"], policyVersion: "test", kind: "money", approvalKey: "money|com.shop|pay" };
      return { gateIds: [(await seedGate(t.db, (await goal()).id, { kind: "approval", options: ["approve", "deny"], policy })).id], decision: "approve", rationale: "refundable" };
    },
  },
  "evidence.list": { input: async () => ({ goalId: (await goal()).id }) },
  "evidence.byKey": { input: async () => {
      const key = rid("ev");
      await appendEvidence(t.db, { goalId: (await goal()).id, kind: "observation", summary: "screen", idempotencyKey: key });
      return { idempotencyKey: key };
    },
    outsider: "null",
  },
  "evidence.append": { input: async () => ({ goalId: (await goal()).id, kind: "observation", summary: "screen", idempotencyKey: rid("ev") }) },
  "quota.setPolicy": { input: async () => ({ scope: "goal", goalId: (await goal()).id, windowMs: 60_000, maxSteps: 10 }) },
  "quota.shouldRun": { input: async () => ({ goalId: (await goal()).id, agentId: A() }) },
  "quota.spend": { input: async () => ({ key: rid("sp"), goalId: (await goal()).id, agentId: A(), steps: 1 }) },
  // An agent registers as the agent its token is bound to; a person registers a new one.
  "agent.register": { input: async (p) => ({ id: p.token ? A() : rid("agent"), name: "Pixel", kind: "headless" }), outsider: "ok" },
  "agent.heartbeat": { input: async () => ({ agentId: A() }) },
  "run.get": { input: async () => ({ runId: (await run()).id }) },
  "run.list": { input: async () => ({}), outsider: "ok" },
  "run.replay": { input: async () => ({ runId: (await run()).id }) },
  "run.steps": { input: async () => ({ runId: (await run()).id }) },
  "run.grade": { input: async () => ({ runId: (await run()).id, grade: "B", note: "asked twice" }) },
  "run.start": { input: async () => ({ goalId: (await goal()).id, agentId: A() }) },
  "run.appendStep": { input: async () => ({ runId: (await run()).id, agentId: A(), index: 0, node: "executor" }) },
  "run.recordStep": { input: async () => ({ runId: (await run()).id, agentId: A(), checkpoint: { step: 1 } }) },
  "run.checkpoint": { input: async () => ({ runId: (await run()).id, agentId: A(), checkpoint: { step: 1 } }) },
  "run.resume": { input: async () => ({ runId: (await run()).id, agentId: A() }) },
  "run.finish": { input: async () => ({ runId: (await run()).id, agentId: A(), status: "completed", endReason: "completed" }) },
  "run.takeOver": { input: async () => {
      const c = await running();
      return { runId: (await startRun(t.db, { goalId: c.goalId, todoId: c.todoId, agentId: c.agentId })).id };
    } },
  "run.recordPersonStep": { input: async (caller) => ({ ...(await takenOver(caller)), action: { type: "back" }, screen: { width: 1080, height: 2400 } }) },
  "run.handBack": { input: async (caller) => pick(await takenOver(caller), "runId", "gateId") },
  "turn.route": { input: async () => pick(await claimed(), "todoId", "agentId") },
  "turn.result": { input: async () => ({ ...pick(await running(), "todoId", "agentId", "leaseKey"), idempotencyKey: rid("turn"), kind: "repair_required", summary: "tap missed" }) },
  "board.get": { input: async () => ({ goalId: (await goal()).id }) },
  "board.attention": { input: async () => ({}), outsider: "ok" },
  "demoPhone.allowBrowser": { input: async () => ({ keyName: "PhoneLoop@127.0.0.1 aaaaaaaaaaaaaaaaaaaaaa" }), outsider: "ok" },
  "board.history": { input: async () => ({ goalId: (await goal()).id }) },
  "board.goals": { input: async () => ({}), outsider: "ok" },
  // From the start of the log: a stream let through delivers the goal's creation at once.
  "event.stream": { input: async () => ({ goalId: (await goal()).id, lastEventId: "0" }) },
  "workspace.me": { input: async () => ({}), outsider: "ok" },
  "member.list": { input: async () => ({}), outsider: "ok" },
  "member.setRole": { input: async () => ({ userId: (await seedMember(t.db, "viewer", w.ws)).userId, role: "operator" }) },
  "member.remove": { input: async () => ({ userId: (await seedMember(t.db, "viewer", w.ws)).userId }) },
  "agentToken.mintForTab": { input: async () => ({}), outsider: "ok" },
  "agentToken.issue": { input: async () => ({ name: "Worker 2" }), outsider: "ok" },
  "agentToken.list": { input: async () => ({}), outsider: "ok" },
  "agentToken.listAll": { input: async () => ({}), outsider: "ok" },
  // One's own token; another person's is "not found" (the outsider's case).
  "agentToken.revoke": { input: async (p) => ({ tokenId: (await tokenBy(p.userId ?? w.admin.userId)).tokenId }) },
  "agentToken.reassign": { input: async () => ({ tokenId: (await tokenBy(w.operator.userId)).tokenId, userId: w.admin.userId }) },
  "agentToken.revokeAny": { input: async () => ({ tokenId: (await tokenBy(w.operator.userId)).tokenId }) },
  "invite.create": { input: async () => ({ role: "viewer" }), outsider: "ok" },
  "modelSettings.get": { input: async () => ({}), outsider: "ok" },
  "modelSettings.status": { input: async () => ({}), outsider: "ok" },
  "modelSettings.presets": { input: async () => ({}), outsider: "ok" },
  "modelSettings.test": { input: async () => ({}), outsider: "ok" },
  "modelSettings.checkGrounding": { input: async () => ({}), outsider: "ok" },
  "modelSettings.set": { input: async () => ({ baseUrl: "https://models.example.test/v1", apiKey: "sk-test", models: { executor: "small" } }), outsider: "ok" },
  "policy.get": { input: async () => ({}), outsider: "ok" },
  "task.list": { input: async () => ({}), outsider: "ok" },
  "agent.list": { input: async () => ({}), outsider: "ok" },
  "skill.list": { input: async () => ({ app: "com.loop" }), outsider: "ok" },
  "skill.versions": { input: async () => ({ skillId: (await skill()).id }) },
  "skill.save": { input: async () => ({ app: "com.loop", appVersion: "1.0", name: rid("skill"), goal: "Search Loop", body: { steps: [] }, runId: rid("run") }), outsider: "ok" },
  "skill.recordUse": { input: async () => ({ skillId: (await skill()).id, idempotencyKey: rid("use"), runId: rid("run"), todoId: (await todo()).todoId, ok: true }) },
  "skill.update": { input: async () => ({ skillId: (await skill()).id, goal: "Search Loop for a phrase" }) },
  "skill.disable": { input: async () => ({ skillId: (await skill()).id }) },
  "skill.enable": { input: async () => ({ skillId: (await disabledSkill()).id }) },
  "skill.approve": { input: async () => ({ skillId: (await skill()).id }) },
  "skill.delete": { input: async () => ({ skillId: (await skill()).id }) },
  "shortcut.list": { input: async () => ({}), outsider: "ok" },
  "shortcut.save": { input: async () => ({ app: "com.loop", appVersion: "1.0", shortcuts: [{ uri: "loop://home", activity: "com.loop/.Feed" }] }), outsider: "ok" },
  "shortcut.recordValidation": { input: async () => ({ shortcutId: (await shortcut()).id, ok: false, reason: "no feed" }) },
  "lesson.list": { input: async () => ({ app: "com.loop" }), outsider: "ok" },
  "lesson.add": { input: async () => ({ app: "com.loop", goal: "Search Loop", runId: rid("run"), lessons: [{ kind: "worked", text: rid("lesson") }] }), outsider: "ok" },
  "lesson.update": { input: async () => ({ lessonId: (await lesson()).id, text: rid("lesson") }) },
  "lesson.delete": { input: async () => ({ lessonId: (await lesson()).id }) },
  "suite.list": { input: async () => ({}), outsider: "ok" },
  "suite.get": { input: async () => ({ suiteRunId: (await suiteRun()).id }) },
  "suite.start": { input: async () => ({ modelProfile: "reference-policy", tasks: "settings_*", scenarios: "pack", seeds: 3, perturbations: ["popup"] }), outsider: "ok" },
  "suite.recordAttempt": { input: async () => ({ suiteRunId: (await suiteRun()).id, runId: (await run()).id, ...attempt }) },
  "suite.finish": { input: async () => ({ suiteRunId: (await suiteRun()).id, status: "completed" }) },
  "policy.save": { input: async () => ({ rules: { words: { money: ["zahlen"] } } }), outsider: "ok" },
  "approvalRule.list": { input: async () => ({}), outsider: "ok" },
  "approvalRule.set": { input: async () => ({ category: "money", approvalsNeeded: 2, starterMayApprove: false, ttlMs: null, afterExpiry: "deny" }), outsider: "ok" },
  "wipLimits.get": { input: async () => ({}), outsider: "ok" },
  "wipLimits.set": { input: async () => ({ claimed: null, running: 1000, validating: null, perAgent: 1000 }), outsider: "ok" },
  "notification.channels": { input: async () => ({}), outsider: "ok" },
  "notification.endpoints": { input: async () => ({}), outsider: "ok" },
  "notification.createEndpoint": { input: async () => ({ url: "https://hooks.example.com/phoneloop", format: "generic", kinds: ["gate_opened"] }), outsider: "ok" },
  "notification.deleteEndpoint": { input: async () => ({ endpointId: (await endpoint()).id }) },
  "notification.sendTest": { input: async () => ({ endpointId: (await endpoint()).id }) },
  "notification.deliveries": { input: async () => ({}), outsider: "ok" },
  "notification.subscribePush": { input: async () => ({ endpoint: "https://push.example.com/sub", p256dh: "B".repeat(87), auth: "a".repeat(22) }), outsider: "ok" },
  "notification.unsubscribePush": { input: async () => ({ endpoint: "https://push.example.com/sub" }), outsider: "ok" },
  "notification.pushStatus": { input: async () => ({ endpoint: "https://push.example.com/sub" }), outsider: "ok" },
  "share.create": { input: async () => ({ runId: (await run()).id }) },
  "share.revoke": { input: async () => ({ shareId: (await createShare(t.db, { workspaceId: w.ws, runId: (await run()).id })).share.id }) },
  "share.list": { input: async () => ({}), outsider: "ok" },
  "share.scan": { input: async () => ({ runId: (await run()).id }) },
  "share.steps": { input: async () => ({ token: (await sharedRun()).token }), outsider: "ok" },
  "share.open": { input: async () => ({ token: (await sharedRun()).token }), outsider: "ok" },
};


function pick<T extends object, K extends keyof T>(o: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
}

const procedures = Object.keys(appRouter._def.procedures as unknown as Record<string, AnyProcedure>);

async function outcomeOf(path: string, caller: CallerInfo): Promise<{ got: string; status: number; message: string }> {
  actingAgent = caller.agentId;
  const r = await callOverHttp(api.url, path, await fixtures[path]!.input(caller), caller.headers);
  return { got: r.status === 401 || r.status === 403 ? String(r.status) : "ok", status: r.status, message: r.message };
}

describe("authorization: every procedure × every caller, over HTTP", () => {
  it("every procedure has a hand-written expectation and real input", () => {
    expect(procedures.length).toBeGreaterThan(90);
    expect(procedures.filter((p) => !EXPECTED[p] || !fixtures[p]), "procedures without a row here: write one").toEqual([]);
    expect(Object.keys(EXPECTED).filter((p) => !procedures.includes(p))).toEqual([]);
    expect(Object.keys(fixtures).filter((p) => !procedures.includes(p))).toEqual([]);
  });

  for (const name of CALLERS) {
    it(`${name}: let through where expected, else 401/403`, async () => {
      const rows: string[] = [];
      for (const path of procedures) {
        if (!EXPECTED[path] || !fixtures[path]) continue;
        const want = expectationOf(path, name);
        const { got, status, message } = await outcomeOf(path, w.callers[name]);
        if (got !== want) rows.push(`${path}: expected ${want}, got ${status}${message ? ` — ${message}` : ""}`);
      }
      expect(rows).toEqual([]);
    });
  }

  it("another workspace's admin gets 404 for every row of this workspace an input names", async () => {
    const rows: string[] = [];
    for (const path of procedures) {
      const fixture = fixtures[path];
      if (!fixture) continue;
      const want = fixture.outsider ?? "not_found";
      actingAgent = w.workerAgent;
      const r = await callOverHttp(api.url, path, await fixture.input(w.outsider), w.outsider.headers);
      const got = r.status === 404 ? "not_found" : r.status === 409 ? "conflict" : r.status === 200 && r.data === null && want === "null" ? "null" : r.status === 200 ? "ok" : String(r.status);
      // Procedures that need no row of this workspace answer the outsider about its own (any status but 401/403/404).
      const fine = want === "ok" ? ![401, 403, 404].includes(r.status) : got === want;
      if (!fine) rows.push(`${path}: expected ${want}, got ${r.status} — ${r.message}`);
    }
    expect(rows).toEqual([]);
  });
});
