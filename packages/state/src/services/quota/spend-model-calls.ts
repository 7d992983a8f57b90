// A model call the runtime made to a direct endpoint (model_call evidence `via: "runtime"`) is spent as its row is
// inserted, in the inserting transaction — a step record's, or evidence.append's — under the key
// `model_call:<the evidence's key>`: the row and its spend are one fact, written once. Like a proxied call's settle,
// the spend is never refused: the call was made and is paid for; the quota stops the next call (should-run, the
// turn router). A proxied call (`via: "api"`) is spent by the proxy's settle (quota.settle), never here.
import type { Evidence } from "../../generated/prisma/client.ts";
import { readEvidenceData } from "../../domain/evidence.ts";
import { actorOf, atParam, randomId, type EventInput, type OperatorContext, type Tx } from "../operator.ts";

/** The spend key of a runtime-metered model call: its evidence row's key. */
export const modelCallSpendKey = (evidenceKey: string): string => `model_call:${evidenceKey}`;

/** Spends the runtime-metered model calls among rows just inserted (`created`); their Events go to `events`. */
export async function spendRuntimeModelCalls(tx: Tx, inserted: Evidence[], events: EventInput[], ctx?: OperatorContext): Promise<void> {
  const at = atParam(ctx);
  for (const e of inserted) {
    if (e.kind !== "model_call") continue;
    const d = readEvidenceData("model_call", e.data);
    if (d.via !== "runtime" || !e.agentId) continue;
    const tokens = (d.inputTokens ?? 0) + (d.outputTokens ?? 0);
    const microUsd = d.microUsd ?? 0;
    if (tokens === 0 && microUsd === 0) continue;
    const key = modelCallSpendKey(e.idempotencyKey);
    const id = randomId("qs");
    // The evidence key is new (its row was just inserted), so its spend key is too: a conflict cannot happen.
    await tx.$executeRaw`
      INSERT INTO "QuotaSpend" ("id", "key", "goalId", "agentId", "todoId", "runId", "steps", "tokens", "microUsd", "createdAt")
      VALUES (${id}, ${key}, ${e.goalId}, ${e.agentId}, ${e.todoId}, ${e.runId}, 0, ${tokens}, ${BigInt(microUsd)}, COALESCE(${at}::timestamptz, now()))`;
    events.push({
      operator: "quota.spend",
      actor: actorOf(ctx, e.agentId),
      subjectId: id,
      goalId: e.goalId,
      payload: { key, steps: 0, tokens, microUsd, todoId: e.todoId, runId: e.runId, evidenceId: e.id, ...(d.estimated ? { estimated: true } : {}) },
    });
  }
}
