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

/**
 * inTx, except that inside a caller's transaction it runs in that transaction itself, without a savepoint. For an
 * operator a step record (run.recordStep) composes, whose checks all come before its writes and whose writes raise
 * no SQL error (conflicts are ON CONFLICT DO NOTHING): a refusal leaves nothing of it written, and any other failure
 * fails the caller's transaction as a whole.
 */
export function inTxJoining<T>(db: DbOrTx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return "$connect" in db ? inTx(db, fn) : fn(db as Tx);
}

/** Whether `db` is a caller's open transaction (not a client): an operator then writes as part of it. */
export function isOpenTx(db: DbOrTx): boolean {
  return !("$connect" in db);
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

/** The one Event row every operator appends; the event stream's readers find it by polling up to the horizon. */
export async function appendEvent(tx: Tx, e: EventInput, ctx?: OperatorContext): Promise<void> {
  await appendEvents(tx, [e], ctx);
}

/** Several operators' Events in one statement, in this order (an operator that writes rows in a batch). */
export async function appendEvents(tx: Tx, events: EventInput[], ctx?: OperatorContext): Promise<void> {
  if (!events.length) return;
  const params: unknown[] = [atParam(ctx)];
  const values = events.map((e) => {
    const at = params.push(e.workspaceId ?? null, e.goalId ?? null, e.operator, e.actor, e.subjectId, JSON.stringify(e.payload ?? {}));
    return `($${at - 5}, $${at - 4}, $${at - 3}, $${at - 2}, $${at - 1}, $${at}::jsonb, COALESCE($1::timestamptz, now()))`;
  });
  // Each id is drawn here, at insert (migration event_ids_at_insert); readers stop at the horizon, not writers.
  await tx.$executeRawUnsafe(`INSERT INTO "Event" ("workspaceId", "goalId", "operator", "actor", "subjectId", "payload", "createdAt") VALUES ${values.join(", ")}`, ...params);
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
 * createDb (a single statement commits on its own), else through Prisma (inside a transaction). `name`, for a hot
 * path's statement on the pool: each connection prepares it once under that name and then only binds and runs it
 * (a name stands for one SQL text).
 */
export async function rawStatement<T>(db: DbOrTx, sql: string, params: unknown[], name?: string): Promise<T[]> {
  const pool = poolOf(db);
  if (!pool) return db.$queryRawUnsafe<T[]>(sql, ...params);
  return (await pool.query(name ? { name, text: sql, values: params } : { text: sql, values: params })).rows as T[];
}

/** SQL for a hot-path statement's first CTE: its time (the operator context's, else now()). */
export function timeCte(atParam: string): string {
  return `tm AS (SELECT COALESCE(${atParam}::timestamptz, now()) AS "now")`;
}
