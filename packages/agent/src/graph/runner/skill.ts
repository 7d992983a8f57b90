// The skill effect family: running a skill on the phone (its contract checked before and after each step), each
// step recorded as an action with the screen it started from, and the use recorded once (by run, step and skill)
// with the values its parameters were given.
import { describeAction } from "../../actions/schema.ts";
import { runSkill as runSkillOnDevice } from "../../skills/execute.ts";
import type { InputEffect, Observation } from "../executor.ts";
import { isDeviceLost } from "../effects.ts";
import { settleOf } from "../learning.ts";
import { guard, type ExecutorRunState, type RunContext } from "../state.ts";

export async function runSkill(ctx: RunContext, state: ExecutorRunState, e: Extract<InputEffect, { type: "run_skill" }>): Promise<Observation> {
  const cp = ctx.ports.controlPlane;
  const ex = state.executor;
  // A resumed skill's body starts at step `from` of the whole skill: steps are numbered in the whole skill.
  const from = e.from ?? 0;
  const ran = await runSkillOnDevice(ctx.ports.device, e.body, {
    approvals: state.approvals,
    ...(ctx.config.policyRules ? { rules: ctx.config.policyRules } : {}),
    ...(ctx.config.appRules ? { appRules: ctx.config.appRules } : {}),
    settle: settleOf(ctx),
    // Each step is recorded as an action with the screen it started from: a replay shows it, a repair distils from it.
    onStep: async (k, st, before, px, part) => {
      const i = k + from;
      const key = part ? `:${part.kind}:${part.n}` : "";
      const why = part?.kind === "seek" ? " (looking for its element)" : part?.kind === "popup" ? " (closing a popup it did not expect)" : "";
      await cp.appendEvidence({
        idempotencyKey: `${state.runId}:${e.stepIndex}:skill:${i}${key}:action`,
        kind: "action",
        goalId: state.goalId,
        runId: state.runId,
        todoId: ex.todoId,
        lease: e.lease,
        stepIndex: e.stepIndex,
        summary: `skill "${e.name}" step ${i + 1}${why}: ${describeAction({ ...st.action } as never)}`.slice(0, 500),
        data: { action: st.action, px, app: `${before.app}/${before.activity}`, skill: { id: e.skillId, step: i, ...(part ? { [part.kind]: part.n } : {}) }, before: { app: `${before.app}/${before.activity}`, screen: { width: before.width, height: before.height }, elements: before.elements.map((x) => ({ text: x.text, id: x.resourceId, box: x.box })) } },
      });
    },
  }).catch((err: unknown) => ({ ok: false as const, performed: 0, failedAt: 0, reason: err instanceof Error ? err.message : String(err), found: [], lost: isDeviceLost(err) }));
  guard(ctx);
  // A resumed skill whose first step did not hold (the model did something else than the approved step) was not used.
  if (!(from > 0 && !ran.ok && ran.performed === 0)) await cp.recordSkillUse({ idempotencyKey: `${state.runId}:${e.stepIndex}:skill-use:${e.skillId}`, skillId: e.skillId, runId: state.runId, todoId: ex.todoId, ok: ran.ok, ...(ran.ok ? {} : { failedAt: ran.failedAt + from, reason: ran.reason.slice(0, 1000) }), ...(Object.keys(e.params).length ? { params: e.params } : {}) });
  return { type: "skill_ran", ok: ran.ok, performed: ran.performed, failedAt: ran.ok ? null : ran.failedAt, reason: ran.ok ? null : ran.reason, ...("lost" in ran && ran.lost ? { lost: true } : {}), ...(ran.ok && ran.gatedAt !== undefined ? { gatedAt: ran.gatedAt } : {}) };
}
