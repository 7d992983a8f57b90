// `npm run suite -- --validate-skills`: every candidate skill of the workspace whose app is one of the pack's (or the
// --scenarios folder's) apps gets a run on a fresh virtual phone with that app's scenario, its goal the skill's
// description with its example values (its goal when it has none), with the profile's models. The run is offered
// that skill alone (it is a candidate of the phone's app version); whether the model uses it is the model's, and
// the core validates it by use when the todo it served is accepted — the suite sets no status. Per skill: validated,
// handed back at step k (why), used but not validated, or not used; then a summary line.
import type { ControlPlane, ModelsInit } from "@phoneloop/agent";
import { readSkillBody } from "@phoneloop/agent";
import { createApiClient, newAgentId, readAllPages } from "@phoneloop/client";
import { MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine } from "@phoneloop/device/node";
import { PAGE_LIMIT } from "@phoneloop/state/domain";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAttempt, type GateAnswerer } from "./attempt.ts";
import { availableApps } from "./tasks.ts";

export interface ValidateSkillsInit {
  apiUrl: string;
  agentToken: string;
  profile: { name: string; models: ModelsInit };
  /** The folder of scenario files whose apps' skills are replayed; the built-in pack when left out. */
  scenarios?: string;
  parallel: number;
  answerGate?: GateAnswerer;
  attemptTimeoutMs?: number;
  signal?: AbortSignal;
  onSkill?: (v: SkillValidation) => void;
}

export type SkillValidationOutcome = "validated" | "handed_back" | "not_validated" | "not_used" | "not_run";

export interface SkillValidation {
  skillId: string;
  name: string;
  app: string;
  version: number;
  /** The goal the run was given. */
  goal: string;
  runId: string | null;
  outcome: SkillValidationOutcome;
  /** handed_back: the step (1-based) whose screen was not as the skill expected; one past its last: its end screen. */
  step?: number;
  /** handed_back: why; not_validated: what the core saw; not_run: what went wrong. */
  reason?: string;
}

/** The parameters a replay cannot fill: no example value is kept for them (a secret typed into a password field). */
export function unfilledParams(skill: { body: Record<string, unknown> }): string[] {
  const body = readSkillBody(skill.body);
  return (body?.params ?? []).filter((k) => !body?.example?.[k]);
}

/** The skill's description with its example values in place of its parameters; its goal when it has no description. */
export function validationGoal(skill: { goal: string; body: Record<string, unknown> }): string {
  const body = readSkillBody(skill.body);
  if (!body?.description) return skill.goal;
  const params = new Set(body.params ?? []);
  return body.description.replace(/\{([a-z][a-z0-9_]*)\}/g, (m, k: string) => (params.has(k) && body.example?.[k] ? body.example[k] : m));
}

export async function validateSkills(init: ValidateSkillsInit): Promise<SkillValidation[]> {
  const client = createApiClient({ apiUrl: init.apiUrl, auth: { kind: "token", token: init.agentToken } });
  const apps = availableApps(init.scenarios);
  const candidates = (await readAllPages((cursor) => client.skill.list.query({ cursor, limit: PAGE_LIMIT.max, status: "candidate" }))).filter((s) => apps.has(s.app));
  const dir = mkdtempSync(join(tmpdir(), "phoneloop-validate-skills-"));
  const credentialStore = new MemoryCredentialStore("suite@phoneloop");
  const key = await credentialStore.generateKey();
  const adbKeysFile = join(dir, "adbkey.pub");
  writeFileSync(adbKeysFile, adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name), { mode: 0o600 });
  const agentId = newAgentId();
  const results: SkillValidation[] = [];
  let next = 0;
  const worker = async () => {
    while (next < candidates.length && !init.signal?.aborted) {
      const skill = candidates[next++]!;
      const goal = validationGoal(skill);
      const unfilled = unfilledParams(skill);
      if (unfilled.length) {
        // A secret is never kept, so no goal can give it: the skill is validated by use in a run that is given it.
        const result: SkillValidation = { skillId: skill.id, name: skill.name, app: skill.app, version: skill.version, goal, runId: null, outcome: "not_run", reason: `its parameter${unfilled.length > 1 ? "s" : ""} ${unfilled.map((k) => `{${k}}`).join(", ")} ha${unfilled.length > 1 ? "ve" : "s"} no kept value (a secret is never kept); run a goal that gives ${unfilled.length > 1 ? "them" : "it"}, and the skill is validated by that use` };
        results.push(result);
        init.onSkill?.(result);
        continue;
      }
      const uses: { ok: boolean; failedAt?: number; reason?: string }[] = [];
      // The run is offered this skill alone; its uses are seen as the runtime records them.
      const view = (cp: ControlPlane): ControlPlane =>
        new Proxy(cp, {
          get(target, prop, receiver) {
            if (prop === "listSkills") return async (f: Parameters<ControlPlane["listSkills"]>[0]) => (await target.listSkills(f)).filter((s) => s.id === skill.id);
            if (prop === "recordSkillUse")
              return async (i: Parameters<ControlPlane["recordSkillUse"]>[0]) => {
                await target.recordSkillUse(i);
                if (i.skillId === skill.id) uses.push({ ok: i.ok, ...(i.failedAt !== undefined ? { failedAt: i.failedAt } : {}), ...(i.reason !== undefined ? { reason: i.reason } : {}) });
              };
            const v = Reflect.get(target, prop, receiver) as unknown;
            return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        });
      const steps = readSkillBody(skill.body)?.steps.length ?? 1;
      const attempt = await runAttempt({
        apiUrl: init.apiUrl,
        agentToken: init.agentToken,
        agentId,
        models: init.profile.models,
        task: { id: skill.name, goal, maxSteps: Math.max(steps * 3, 10), scenario: apps.get(skill.app)! },
        seed: 1,
        trial: 1,
        perturb: [],
        credentialStore,
        adbKeysFile,
        controlPlaneView: view,
        ...(init.answerGate ? { answerGate: init.answerGate } : {}),
        ...(init.attemptTimeoutMs ? { timeoutMs: init.attemptTimeoutMs } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      const base = { skillId: skill.id, name: skill.name, app: skill.app, version: skill.version, goal, runId: attempt.runId };
      let result: SkillValidation;
      const handedBack = uses.find((u) => !u.ok);
      if (handedBack) result = { ...base, outcome: "handed_back", step: (handedBack.failedAt ?? 0) + 1, reason: handedBack.reason ?? "no reason given" };
      else if (uses.length) {
        const now = (await readAllPages((cursor) => client.skill.list.query({ cursor, limit: PAGE_LIMIT.max, app: skill.app, appVersion: skill.appVersion }))).find((s) => s.id === skill.id);
        result = now?.status === "validated" ? { ...base, outcome: "validated" } : { ...base, outcome: "not_validated", reason: `the skill reached its end screen, but the core did not validate it (it is ${now?.status ?? "gone"}): the todo it served was not accepted — ${attempt.reason}` };
      } else if (attempt.runId === null) result = { ...base, outcome: "not_run", reason: attempt.reason };
      else result = { ...base, outcome: "not_used", reason: "the model did not use the skill it was offered" };
      results.push(result);
      init.onSkill?.(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(init.parallel, candidates.length)) }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return candidates.map((c) => results.find((r) => r.skillId === c.id)).filter((r): r is SkillValidation => r !== undefined);
}

/** One line per skill: its name, app and version, and what its run showed. */
export function skillValidationLine(v: SkillValidation): string {
  const what =
    v.outcome === "validated"
      ? "validated"
      : v.outcome === "handed_back"
        ? `handed back at step ${v.step} (${v.reason})`
        : v.outcome === "not_validated"
          ? `used, not validated (${v.reason})`
          : v.outcome === "not_used"
            ? "not used"
            : `not run (${v.reason})`;
  return `skill "${v.name}" (${v.app}) v${v.version}: ${what}${v.runId ? ` — run ${v.runId}` : ""}`;
}

/** The last line: how many candidates were replayed and what became of them. */
export function skillValidationSummary(vs: SkillValidation[]): string {
  const n = (o: SkillValidationOutcome) => vs.filter((v) => v.outcome === o).length;
  return `skills=${vs.length} validated=${n("validated")} handed_back=${n("handed_back")} not_validated=${n("not_validated")} not_used=${n("not_used")} not_run=${n("not_run")}`;
}
