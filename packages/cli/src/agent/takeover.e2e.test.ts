// Take over and hand back, end to end: the real runtime (runAgent) drives the virtual phone over real ADB, writes
// through packages/client to the real API and Postgres, and calls its models through the API's model proxy as the
// demo model (the reference policy). The pack task gives no password, so the policy asks for a takeover at the
// login form. A member, through the API client with their own session, takes over, performs the person's steps on
// the phone directly (as the browser does through its own device connection) and records each with
// run.recordPersonStep — the password as a secret — then hands back. The run completes, the task's evaluator scores
// 1, and the replay shows the person's steps with their actor and the password masked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModels, runAgent, systemClock, type ControlPlane } from "@phoneloop/agent";
import { nodeImages } from "@phoneloop/agent/node";
import { agentTokenHeaders, signUpMember, useApiServer, type SignedUpMember } from "@phoneloop/api/testing";
import { createApiClient, createControlPlane, uploadBlob, type ApiClient } from "@phoneloop/client";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { MASKED_TEXT } from "@phoneloop/state/domain";
import { useTestDatabase } from "@phoneloop/state/testing";
import { center, find, startVirtualPhone, type PhoneEngine, type VirtualPhone } from "@phoneloop/virtual-phone";

const TASK = "social_sign_in_profile";
const PASSWORD = "correct horse battery staple";

const t = useTestDatabase();
const api = useApiServer(t);
let phone: VirtualPhone;
let device: AdbDevice;
let admin: SignedUpMember;

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin", name: "Ana" });
  const credentialStore = new MemoryCredentialStore();
  const key = await credentialStore.generateKey();
  phone = await startVirtualPhone({ scenario: "social", seed: 1, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
  device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
});
afterAll(async () => {
  await device?.close().catch(() => undefined);
  await phone?.stop();
});

type PersonAction = { type: "tap"; x: number; y: number } | { type: "type"; text: string } | { type: "back" };

/** One person's step: performed on the phone itself, its screenshots before and after put first, then recorded. */
async function personStep(person: ApiClient, engine: PhoneEngine, at: { runId: string; gateId: string }, action: PersonAction, secret = false): Promise<void> {
  const before = await engine.screenshot();
  const size = { width: before.readUInt32BE(16), height: before.readUInt32BE(20) };
  if (action.type === "tap") engine.tap(action.x, action.y);
  else if (action.type === "type") engine.typeText(action.text);
  else engine.key(4);
  const after = await engine.screenshot();
  const [b, a] = await Promise.all([uploadBlob(person, { bytes: before, mime: "image/png" }), uploadBlob(person, { bytes: after, mime: "image/png" })]);
  // A secret's text never reaches the API: it is sent empty and stored masked.
  const sent = action.type === "type" && secret ? { type: "type" as const, text: "" } : action;
  await person.run.recordPersonStep.mutate({ ...at, action: sent, screen: size, beforeSha256: b.sha256, afterSha256: a.sha256, ...(secret ? { secret: true } : {}) });
}

/** The client's ControlPlane, with a member taking over the phone as soon as the agent asks (and approving other gates). */
function aPersonSignsIn(cp: ControlPlane, person: ApiClient, asked: string[]): ControlPlane {
  return new Proxy(cp, {
    get(target, prop, receiver) {
      if (prop !== "openGate") return Reflect.get(target, prop, receiver) as unknown;
      return async (input: Parameters<ControlPlane["openGate"]>[0]) => {
        const opened = await target.openGate(input);
        // Another gate (opening the login form asks about an account): approved, as the task asks for it.
        if (input.kind !== "takeover") {
          await person.gate.resolve.mutate({ gateId: opened.gateId, decision: "approve", rationale: "the task asks for it" });
          return opened;
        }
        asked.push(`${input.takeoverReason}: ${input.question}`);
        const runId = input.runId!;
        const { gateId } = await person.run.takeOver.mutate({ runId });
        expect(gateId).toBe(opened.gateId);
        const at = { runId, gateId };
        const engine = phone.engine;
        const [px, py] = center(find(engine, "password"));
        await personStep(person, engine, at, { type: "tap", x: px, y: py });
        await personStep(person, engine, at, { type: "type", text: PASSWORD }, true);
        await personStep(person, engine, at, { type: "back" });
        const [lx, ly] = center(find(engine, "login_button"));
        await personStep(person, engine, at, { type: "tap", x: lx, y: ly });
        await person.run.handBack.mutate({ runId, gateId, note: "Signed in." });
        return opened;
      };
    },
  });
}

describe("take over and hand back", { timeout: 300_000 }, () => {
  it("the run asks for a takeover at the login, a member signs in on the phone and hands back, the run completes with score 1 and the replay shows the person's steps", async () => {
    const { token } = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId, name: TASK });
    const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    const person = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
    const asked: string[] = [];
    const controlPlane = aPersonSignsIn(createControlPlane(client, { apiUrl: api.url, gatePollMaxMs: 200 }), person, asked);
    const role = (r: string) => ({ baseURL: `${api.url}/model/${r}/v1`, apiKey: token, model: "" });
    const models = createModels({ planner: role("planner"), executor: role("executor"), summarizer: role("summarizer") });
    const { goal } = phone.engine.startTask(TASK, 1);
    expect(goal).not.toContain(PASSWORD);

    const out = await runAgent({ device, models, controlPlane, clock: systemClock, images: nodeImages }, { goal, agent: { name: "takeover e2e", kind: "headless", capabilities: ["phone"] }, config: { learn: false } });

    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^login: Please sign in on the phone/);
    const evaluation = phone.engine.evaluate(TASK);
    expect(evaluation.reason).toBe(`all ${evaluation.checks.length} checks passed`);
    expect(evaluation.score).toBe(1);
    expect(out).toMatchObject({ status: "completed", endReason: "all_done" });

    // The replay: the person's four steps by Ana, the password masked, the agent's steps around them by the agent.
    const replay = await person.run.steps.query({ runId: out.runId, limit: 100 });
    expect(replay.nextCursor).toBeNull();
    const steps = replay.items;
    const theirs = steps.filter((s) => s.actor.kind === "member");
    expect(theirs.map((s) => (s.action as { type: string }).type)).toEqual(["tap", "type", "back", "tap"]);
    for (const s of theirs) expect(s.actor).toEqual({ kind: "member", memberId: admin.userId, name: "Ana" });
    expect(theirs[1]!.action).toMatchObject({ type: "type", text: MASKED_TEXT, masked: true });
    expect(JSON.stringify(replay)).not.toContain(PASSWORD);
    const indexes = steps.map((s) => s.index);
    expect(new Set(indexes).size).toBe(indexes.length);
    // The agent asked before the person's steps and went on after them.
    const ask = steps.find((s) => (s.action as { type?: string } | null)?.type === "ask_takeover")!;
    expect(ask.actor).toEqual({ kind: "agent" });
    expect(steps.filter((s) => s.actor.kind === "agent" && s.index > theirs.at(-1)!.index).length).toBeGreaterThan(0);
  });
});
