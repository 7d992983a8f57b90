// Validating a skill before it is offered: replay it on a fresh phone (one set to where the skill starts, with no
// run on it) and mark it validated when it reaches its end screen — or the step a person must approve, with every
// screen before it as expected (a replay approves nothing). A failed replay leaves it a candidate.
import type { ControlPlane, Device, SkillRecord } from "../ports.ts";
import { readSkillBody } from "./contract.ts";
import { runSkill, type SkillRunResult } from "./execute.ts";

export interface SkillReplayOptions {
  /** Settles the screen after an action (Device.waitForStable). */
  settle?: () => Promise<void>;
}

export async function validateSkill(device: Device, cp: Pick<ControlPlane, "setSkillStatus">, skill: SkillRecord, opts: SkillReplayOptions = {}): Promise<SkillRunResult> {
  const body = readSkillBody(skill.body);
  if (!body) return { ok: false, performed: 0, failedAt: 0, reason: `skill ${skill.id} has no replayable body`, found: [] };
  const settle = opts.settle ?? (async () => void (await device.waitForStable({ timeoutMs: 3000, intervalMs: 30, requiredMatches: 1, checkLoadingIndicators: true }).catch(() => null)));
  // A replay has no person to ask: an action that would need approval ends it (nothing is approved in advance).
  const result = await runSkill(device, body, { approvals: { streak: {} }, settle });
  if (result.ok && skill.status !== "disabled") await cp.setSkillStatus({ skillId: skill.id, status: "validated" });
  return result;
}
