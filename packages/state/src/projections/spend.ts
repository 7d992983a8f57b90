// What was spent (steps, tokens, micro-USD), summed from the QuotaSpend rows: per todo, per run, per goal. Quota
// policies cap spend over a window; these totals are what the board and the run view show, window or not.
import { Prisma } from "../generated/prisma/client.ts";
import type { DbOrTx } from "../services/operator.ts";
import type { Amounts } from "../services/quota/usage.ts";

export const NOTHING_SPENT: Amounts = { steps: 0, tokens: 0, microUsd: 0 };

type Row = { key: string | null; steps: bigint; tokens: bigint; microUsd: bigint };
const amounts = (r: Row | undefined): Amounts => (r ? { steps: Number(r.steps), tokens: Number(r.tokens), microUsd: Number(r.microUsd) } : { ...NOTHING_SPENT });

/** A goal's spend in total and grouped by todo and by run. */
export async function goalSpend(db: DbOrTx, goalId: string): Promise<{ total: Amounts; byTodo: Map<string, Amounts>; byRun: Map<string, Amounts> }> {
  const sums = (group: Prisma.Sql) => db.$queryRaw<Row[]>`
    SELECT ${group} AS "key", sum("steps")::bigint AS "steps", sum("tokens")::bigint AS "tokens", sum("microUsd")::bigint AS "microUsd"
    FROM "QuotaSpend" WHERE "goalId" = ${goalId} GROUP BY 1`;
  const [byTodo, byRun, total] = await Promise.all([sums(Prisma.sql`"todoId"`), sums(Prisma.sql`"runId"`), sums(Prisma.sql`NULL::text`)]);
  const grouped = (rows: Row[]) => new Map(rows.filter((r) => r.key !== null).map((r) => [r.key!, amounts(r)]));
  return { total: amounts(total[0]), byTodo: grouped(byTodo), byRun: grouped(byRun) };
}

/** One run's spend. */
export async function runSpend(db: DbOrTx, runId: string): Promise<Amounts> {
  const rows = await db.$queryRaw<Row[]>`
    SELECT NULL::text AS "key", sum("steps")::bigint AS "steps", sum("tokens")::bigint AS "tokens", sum("microUsd")::bigint AS "microUsd"
    FROM "QuotaSpend" WHERE "runId" = ${runId} HAVING count(*) > 0`;
  return amounts(rows[0]);
}
