// What every operator shares: a db or an open transaction, the acting context, the time source, the Event row.
import { poolOf, type Db } from "../db/client.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import type { Clock } from "../domain/clock.ts";

export type Tx = Prisma.TransactionClient;
/** Operators accept the client or an open transaction, so callers can compose several in one transaction. */
export type DbOrTx = Db | Tx;

export interface OperatorContext {
  /** Who acts, for the Event row. Defaults to the agent or member named in the input, else "system". */
  actor?: string;
  /** Overrides the database's now() (tests move a manual clock instead of sleeping). */
  clock?: Clock;
}

export function inTx<T>(db: DbOrTx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if ("$transaction" in db && typeof db.$transaction === "function") {
    return (db as Db).$transaction(fn, { maxWait: 10_000, timeout: 20_000 });
  }
  return fn(db as Tx);
}

/** The clock's time as a Date, or undefined when the database's now() decides. */
export function clockDate(ctx?: OperatorContext): Date | undefined {
  return ctx?.clock ? new Date(ctx.clock.now()) : undefined;
}

/** The instant an operator acts at, as a SQL parameter: null means "the database's now()". */
export function atParam(ctx?: OperatorContext): Date | null {
  return clockDate(ctx) ?? null;
}

/** The operator's time as a value: the clock's, or the transaction's now(). */
export async function currentTime(tx: DbOrTx, ctx?: OperatorContext): Promise<Date> {
  const at = clockDate(ctx);
  if (at) return at;
  const rows = await tx.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
  return rows[0]!.now;
}

export interface EventInput {
  operator: string;
  actor: string;
  subjectId: string;
  goalId?: string | null;
  /** Needed when there is no goal (agents, members, tokens); else a trigger sets it from the goal. */
  workspaceId?: string | null;
  payload?: Record<string, unknown>;
}

/** The one Event row every operator appends (the trigger announces it on phoneloop_events). */
export async function appendEvent(tx: Tx, e: EventInput, ctx?: OperatorContext): Promise<void> {
  const at = atParam(ctx);
  // No id is returned: the event's id is given at commit (see migration event_ids_at_commit), not here.
  await tx.$executeRaw`
    INSERT INTO "Event" ("workspaceId", "goalId", "operator", "actor", "subjectId", "payload", "createdAt")
    VALUES (${e.workspaceId ?? null}, ${e.goalId ?? null}, ${e.operator}, ${e.actor}, ${e.subjectId}, ${JSON.stringify(e.payload ?? {})}::jsonb,
            COALESCE(${at}::timestamptz, now()))`;
}

export function actorOf(ctx: OperatorContext | undefined, fallback: string | undefined): string {
  return ctx?.actor ?? fallback ?? "system";
}

export function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
}

/** A unique-constraint violation, whether raised through the query builder (P2002) or raw SQL (23505). */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string; meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string } } } };
  if (err?.code === "P2002" || err?.code === "23505") return true;
  if (err?.meta?.code === "23505") return true;
  return typeof err?.message === "string" && /23505|unique constraint/i.test(err.message);
}

/**
 * One SQL statement with positional parameters ($1, $2, …): straight on the pool when `db` is a client from
 * createDb (a single statement commits on its own), else through Prisma (inside a transaction). The statement's
 * last parameter must be the notify-after-commit flag: on the pool path its Event is announced after the commit
 * (see the notify_after_commit migration); inside a caller's transaction the trigger announces it at commit.
 */
export async function rawStatement<T extends { event_id?: unknown }>(db: DbOrTx, sql: string, params: unknown[]): Promise<T[]> {
  const pool = poolOf(db);
  if (!pool) return db.$queryRawUnsafe<T[]>(sql, ...params, false);
  const rows = (await pool.query(sql, [...params, true])).rows as T[];
  const ids = rows.map((r) => r.event_id).filter((id) => id != null);
  if (ids.length) await announceCommitted(pool, ids.map(String));
  return rows;
}

// Announcements of writes that finish in the same turn of the event loop go out as one notify-only statement.
// The write has committed: a failed announcement must not turn it into an error the caller would retry (the
// API's event stream still finds the row when it catches up after a reconnect).
interface AnnounceBatch {
  ids: string[];
  sent: Promise<void>;
}
type Queryable = { query: (sql: string, params: unknown[]) => Promise<unknown> };
const openBatches = new WeakMap<Queryable, AnnounceBatch>();

function announceCommitted(pool: Queryable, ids: string[]): Promise<void> {
  let batch = openBatches.get(pool);
  if (!batch) {
    const b: AnnounceBatch = { ids: [], sent: Promise.resolve() };
    b.sent = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      openBatches.delete(pool);
      const sql = `SELECT pg_notify('phoneloop_events', id::text) FROM unnest($1::bigint[]) AS id ORDER BY id`;
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          await pool.query(sql, [b.ids]);
          return;
        } catch {
          /* retried once, then left to the stream's catch-up */
        }
      }
    });
    openBatches.set(pool, b);
    batch = b;
  }
  batch.ids.push(...ids);
  return batch.sent;
}

/** SQL for a hot-path statement's first CTE: its time, and whether its Event is announced after commit ($n). */
export function timeCte(atParam: string, deferParam: string): string {
  return `tm AS (SELECT COALESCE(${atParam}::timestamptz, now()) AS "now",
    set_config('phoneloop.notify_after_commit', CASE WHEN ${deferParam}::boolean THEN 'on' ELSE 'off' END, true) AS "notify")`;
}
