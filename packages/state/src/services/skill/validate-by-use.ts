// Validation by use: the core's decision, made when a run ends, from what the run recorded — not the agent's word.
// A candidate the run used is validated when that use reached the skill's end screen with every step's screen as
// expected (its skill.recordUse said ok) and the todo it was used for was accepted (done, its completion validated).
// The validation is a `validation` evidence row of the run naming the skill and version, and an Event.
import { parseInput } from "../../domain/input.ts";
import { actorOf, appendEvent, atParam, currentTime, type OperatorContext, type Tx } from "../operator.ts";
import { AppendEvidenceInput, insertEvidence } from "../evidence/append-evidence.ts";

interface Use {
  skillId: string;
  todoId: string;
  version: number;
}

/** Validates the candidates `run` used for todos it got accepted; called in the run's finishing transaction. */
export async function validateSkillsByUse(tx: Tx, run: { id: string; goalId: string; agentId: string }, ctx?: OperatorContext): Promise<void> {
  const uses = await tx.$queryRaw<Use[]>`
    SELECT "subjectId" AS "skillId", "payload"->>'todoId' AS "todoId", ("payload"->>'version')::int AS "version" FROM "Event"
    WHERE "goalId" = ${run.goalId} AND "operator" = 'skill.recordUse' AND "payload"->>'runId' = ${run.id} AND ("payload"->>'ok')::boolean
    ORDER BY "id"`;
  if (!uses.length) return;
  const accepted = new Set(
    (await tx.todo.findMany({ where: { id: { in: [...new Set(uses.map((u) => u.todoId))] }, state: "done", lastResult: "validated_completion" }, select: { id: true } })).map((t) => t.id),
  );
  for (const use of uses) {
    if (!accepted.has(use.todoId)) continue;
    // A skill repaired, retired, disabled or validated since this use is not this use's to validate.
    const { count } = await tx.skill.updateMany({ where: { id: use.skillId, status: "candidate", version: use.version }, data: { status: "validated", updatedAt: await currentTime(tx, ctx) } });
    if (!count) continue;
    const skill = await tx.skill.findUniqueOrThrow({ where: { id: use.skillId } });
    const summary = `Skill "${skill.name}" (${skill.app} ${skill.appVersion}) version ${skill.version} validated by use: every step's screen was as expected and its todo was accepted.`;
    const values = parseInput(
      AppendEvidenceInput,
      {
        goalId: run.goalId,
        todoId: use.todoId,
        runId: run.id,
        kind: "validation",
        summary: summary.slice(0, 2000),
        data: { code: "skill_validated_by_use", message: `skill ${skill.id} version ${skill.version}`, reason: summary },
        idempotencyKey: `skill:${skill.id}:v${skill.version}:validated:${run.id}`,
      },
      "skill.validate",
    );
    const [row] = await insertEvidence(tx, [{ values, at: atParam(ctx) }], ctx);
    await appendEvent(
      tx,
      { operator: "skill.validate", actor: actorOf(ctx, run.agentId), subjectId: skill.id, workspaceId: skill.workspaceId, payload: { by: "use", version: skill.version, runId: run.id, todoId: use.todoId, evidenceId: row!.evidence.id, status: "validated" } },
      ctx,
    );
  }
}
