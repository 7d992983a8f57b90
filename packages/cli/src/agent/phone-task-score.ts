// A virtual phone runs tasks with evaluators; only its control API knows the score. The headless composition
// asks it at the end of a run (when --phone-control is given) and records the score as validation evidence, so the
// agent runtime never learns that its phone is simulated.
import type { ControlPlane } from "@phoneloop/agent";

export interface PhoneControl {
  /** The virtual phone's control API, e.g. http://127.0.0.1:7370 */
  url: string;
  /** Its bearer token (PHONE_CONTROL_TOKEN; the phone prints it at start). */
  token: string;
}

export interface TaskScore {
  task: string;
  score: number;
  reason: string;
  checks: unknown;
}

async function control<T>(pc: PhoneControl, method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${pc.url.replace(/\/+$/, "")}${path}`, {
    method,
    headers: { authorization: `Bearer ${pc.token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`The virtual phone's control API answered ${res.status} to ${method} ${path}: ${(await res.text()).slice(0, 300)}. Check --phone-control and PHONE_CONTROL_TOKEN.`);
  return (await res.json()) as T;
}

/** The active task's evaluator score, or null when the phone runs no task. */
export async function scorePhoneTask(pc: PhoneControl, answer: string | undefined): Promise<TaskScore | null> {
  const state = await control<{ activeTask?: string | null }>(pc, "GET", "/state");
  if (!state.activeTask) return null;
  const r = await control<{ score: number; reason: string; checks?: unknown }>(pc, "POST", `/tasks/${encodeURIComponent(state.activeTask)}/evaluate`, answer ? { answer } : {});
  return { task: state.activeTask, score: r.score, reason: r.reason, checks: r.checks ?? null };
}

/** Scores the run's task and records it as the run's validation evidence (once per run). */
export async function recordPhoneTaskScore(cp: ControlPlane, pc: PhoneControl, run: { runId: string; goalId: string; answer?: string }): Promise<TaskScore | null> {
  const score = await scorePhoneTask(pc, run.answer);
  if (!score) return null;
  await cp.appendEvidence({
    idempotencyKey: `${run.runId}:phone_task_score`,
    kind: "validation",
    goalId: run.goalId,
    runId: run.runId,
    summary: `virtual phone task ${score.task}: score ${score.score} (${score.reason})`.slice(0, 2000),
    data: { evaluator: "virtual_phone_task", ...score },
  });
  return score;
}
