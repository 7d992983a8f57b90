// Every task of the virtual phone's pack, solved end to end by the reference policy: the real runtime (runAgent)
// drives the virtual phone over ADB (TCP), writes through packages/client to the real API and Postgres, and calls
// its models through the API's model proxy with its agent token — a workspace without model settings, so the proxy
// answers with the demo model (this policy), as on a fresh install. An approver answers each gate through the API.
// Each task's own evaluator scores the phone afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModels, systemClock, type ControlPlane } from "@phoneloop/agent";
import { nodeImages } from "@phoneloop/agent/node";
import { agentTokenHeaders, type SignedUpMember, signUpMember, useApiServer } from "@phoneloop/api/testing";
import { createApiClient, createControlPlane } from "@phoneloop/client";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { useTestDatabase } from "@phoneloop/state/testing";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { runAgent } from "@phoneloop/agent";
import { packTasks, REFERENCE_POLICY_LABEL, REFERENCE_POLICY_MODEL } from "@phoneloop/reference-policy";
import { NEEDS_A_PERSON } from "./tasks.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let phone: VirtualPhone;
let device: AdbDevice;
let admin: SignedUpMember;
let approver: SignedUpMember;

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin", name: "Ada" });
  approver = await signUpMember({ db: t.db, auth: api.auth }, { role: "approver", workspaceId: admin.workspaceId, name: "Ravi" });
  const credentialStore = new MemoryCredentialStore();
  const key = await credentialStore.generateKey();
  phone = await startVirtualPhone({ scenario: "social", seed: 1, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
  device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
});
afterAll(async () => {
  await device?.close().catch(() => undefined);
  await phone?.stop();
});

/** The client's ControlPlane, with a person approving each gate through the API as soon as it opens. */
function approvingEachGate(cp: ControlPlane, approved: string[]): ControlPlane {
  const person = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: approver.headers.cookie! } });
  return new Proxy(cp, {
    get(target, prop, receiver) {
      if (prop !== "openGate") return Reflect.get(target, prop, receiver) as unknown;
      return async (input: Parameters<ControlPlane["openGate"]>[0]) => {
        const opened = await target.openGate(input);
        approved.push(input.question);
        await person.gate.resolve.mutate({ gateId: opened.gateId, decision: "approve", rationale: "the task asks for it" });
        return opened;
      };
    },
  });
}

// Here, not in packages/reference-policy: the API depends on the policy (its demo model), so the policy's own
// package may not depend on the API or the client, not even for a test.
describe("the reference policy solves every task of the pack through the runtime, the phone and the state core", { timeout: 600_000 }, () => {
  // A takeover task needs a person on the phone: the headless takeover e2e (packages/cli) solves it with one.
  for (const task of packTasks().filter((t) => !t.tags.includes(NEEDS_A_PERSON))) {
    it(`${task.id} scores 1`, async () => {
      const { token } = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId, name: task.id });
      const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
      const gates: string[] = [];
      const controlPlane = approvingEachGate(createControlPlane(client, { apiUrl: api.url, gatePollMaxMs: 200 }), gates);
      const role = (r: string) => ({ baseURL: `${api.url}/model/${r}/v1`, apiKey: token, model: "" });
      const models = createModels({ planner: role("planner"), executor: role("executor"), summarizer: role("summarizer") });
      const { goal } = phone.engine.startTask(task.id, 1);

      // Learning across runs is off: it validates deeplink shortcuts on the phone after the run, which moves the
      // phone off the screen a task ends on ("ended on the home screen"); this test judges the policy and the harness.
      const out = await runAgent(
        { device, models, controlPlane, clock: systemClock, images: nodeImages },
        { goal, agent: { name: `reference ${task.id}`, kind: "headless", capabilities: ["phone"] }, config: { learn: false } },
      );

      const evaluation = phone.engine.evaluate(task.id, { answer: out.report.findings.join("\n") });
      expect(evaluation.reason).toBe(`all ${evaluation.checks.length} checks passed`);
      expect(evaluation.score).toBe(1);
      expect(out).toMatchObject({ status: "completed", endReason: "all_done" });
      // The state core holds the run, and every model call went through the proxy as the labelled demo model.
      const run = await client.run.get.query({ runId: out.runId });
      expect(run.status).toBe("completed");
      const calls = (await client.evidence.list.query({ goalId: out.goalId, kind: "model_call" })).items;
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) expect(c.data).toMatchObject({ model: REFERENCE_POLICY_MODEL, demo: true, microUsd: 0 });
      expect(out.report.conclusion).toContain(REFERENCE_POLICY_LABEL);
      // A payment waited at a gate for a person before it reached the phone.
      if (task.tags.includes("payment")) expect(gates.some((q) => /pay/i.test(q))).toBe(true);
    });
  }
});
