// The one setup of the headless agent's end-to-end tests: a throwaway database with the real API over it, virtual
// phones over real ADB/TCP (each started on a task, at a variant), scripted model servers, and a workspace with an
// agent token — and an afterEach that closes the test's devices, phones and model servers. Call it once at the top of
// a test file (it registers the database's and the API's hooks, then the cleanup).
import { afterEach } from "vitest";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedModelServerInit } from "@phoneloop/agent/testing";
import { useApiServer, type UsedApiServer } from "@phoneloop/api/testing";
import { issueAgentToken } from "@phoneloop/state";
import { seedWorkspace, useTestDatabase, type UsedTestDatabase } from "@phoneloop/state/testing";
import { startVirtualPhone, type PhoneEngine, type VirtualPhone } from "@phoneloop/virtual-phone";

export interface E2ePhone {
  phone: VirtualPhone;
  engine: PhoneEngine;
  device: AdbDevice;
  /** The task's goal with the variant's values, as the agent is given it. */
  goal: string;
  /** The variant's values. */
  params: Record<string, unknown>;
  /** The task's evaluator score now (with the run's answer, for a task that asks for one). */
  score(answer?: string): number;
}

export interface E2eWorker {
  workspace: { id: string };
  admin: { id: string };
  token: string;
  /** The agent the token acts as (it registers it on its first run; each later run keeps it). */
  agentId: string;
}

export interface HeadlessE2e {
  t: UsedTestDatabase;
  api: UsedApiServer;
  /** A fresh virtual phone on `scenario` (a built-in name, or a scenario object), started on `task` at `variant`. */
  phone(o: { scenario: string | object; seed: number; task: string; variant?: number }): Promise<E2ePhone>;
  /** A scripted OpenAI-compatible endpoint, stopped after the test. */
  modelServer(init: ScriptedModelServerInit): Promise<ScriptedModelServer>;
  /** A new workspace and an agent token of it. */
  worker(workspaceName: string, agentName: string): Promise<E2eWorker>;
}

export function useHeadlessE2e(name: string): HeadlessE2e {
  const t = useTestDatabase();
  const api = useApiServer(t);
  const phones: VirtualPhone[] = [];
  const devices: AdbDevice[] = [];
  const servers: ScriptedModelServer[] = [];
  afterEach(async () => {
    for (const d of devices.splice(0)) await d.close().catch(() => undefined);
    for (const p of phones.splice(0)) await p.stop();
    for (const s of servers.splice(0)) await s.stop();
  });
  const credentialStore = new MemoryCredentialStore(`${name}@phoneloop`);

  return {
    t,
    api,
    async phone({ scenario, seed, task, variant = 0 }) {
      const key = await credentialStore.generateKey();
      const p = await startVirtualPhone({ scenario: scenario as string /* the engine takes a scenario object too */, seed, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
      phones.push(p);
      const { goal, params } = p.engine.startTask(task, { seed, variant });
      const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: p.adbPort, credentialStore }));
      devices.push(device);
      return { phone: p, engine: p.engine, device, goal, params, score: (answer) => p.engine.evaluate(task, answer === undefined ? {} : { answer }).score };
    },
    async modelServer(init) {
      const server = await startScriptedModelServer(init);
      servers.push(server);
      return server;
    },
    async worker(workspaceName, agentName) {
      const { workspace, admin } = await seedWorkspace(t.db, workspaceName);
      const { token } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: agentName, issuedBy: admin.id });
      return { workspace, admin, token, agentId: `agent_${agentName}_${workspace.id}` };
    },
  };
}
