// The live event stream. Every state change appends an Event row (its id drawn at insert); one dedicated
// connection per process reads the events after the last one it dispatched, in id order, up to the horizon (no
// running transaction can still commit a smaller id: @phoneloop/state EventHorizon), and fans them out to that
// process's subscribers, so any number of API processes can share one database. It reads every pollMs, and at
// once on a NOTIFY on phoneloop_events (anyone may wake the readers that way); writers do not notify, since a
// NOTIFY holds Postgres's commit-order lock through the notifying transaction's WAL flush.
import pg from "pg";
import { EventHorizon, eventsPruned, eventsPrunedThrough, type EventView } from "@phoneloop/state";

export const EVENTS_CHANNEL = "phoneloop_events";
/** How the LISTEN connection shows in pg_stat_activity. */
export const EVENTS_APPLICATION_NAME = "phoneloop-api-events";

/** An Event row as the history projection returns it; its id (a decimal string) is the stream's resume cursor. */
export type StreamedEvent = EventView;

type Listener = (event: StreamedEvent) => void;

export interface EventHubInit {
  databaseUrl: string;
  onLog?: (line: string) => void;
  /** How often the reader reads (ms); 50 unless set. */
  pollMs?: number;
}

export class EventHub {
  private client: pg.Client | undefined;
  private readonly listeners = new Set<Listener>();
  /** Open streams' ends, told when the process shuts down. */
  private readonly shutdownListeners = new Set<(error: Error) => void>();
  private shutdownCause: Error | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private flushQueued = false;
  /** The last id dispatched: every committed event up to it went out, in id order. */
  private lastSeenId: bigint | undefined;
  private horizon: EventHorizon;
  private pollTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private reconnectDelayMs = 250;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly log: (line: string) => void;
  /** For subscribers' backlog reads, apart from the LISTEN connection. */
  private readonly pool: pg.Pool;

  constructor(private readonly init: EventHubInit) {
    this.log = init.onLog ?? (() => {});
    this.pool = new pg.Pool({ connectionString: init.databaseUrl, application_name: `${EVENTS_APPLICATION_NAME}-backlog`, max: 4 });
    this.pool.on("error", (e) => this.log(`event backlog connection failed: ${e.message}`));
    this.horizon = new EventHorizon(this.pool);
  }

  /**
   * Events after `afterId` up to the last one this hub dispatched, in id order (a subscriber's backlog): what comes
   * after that reaches a subscriber from the hub.
   */
  readAfter(afterId: bigint, limit: number, goalId?: string, workspaceId?: string): Promise<StreamedEvent[]> {
    return readEventsAfter(this.pool, afterId, this.lastSeenId ?? 0n, limit, goalId, workspaceId);
  }

  /** How far the collector has pruned the stream (event retention): a resume from below it may miss events. */
  prunedThrough(): Promise<bigint> {
    return eventsPrunedThrough(this.pool);
  }

  /** The last id drawn now: every event committed before this call has an id up to it (a stream "from now on"). */
  lastCommittedId(): Promise<bigint> {
    return this.horizon.lastDrawn();
  }

  /** Connects and LISTENs; resolves once notifications are being received. */
  async start(): Promise<void> {
    await this.connect();
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The process is shutting down: every open stream ends with `error` (which tells its client to resume elsewhere from its
   * last event id), and a stream opened from now on is refused with it.
   */
  shutDown(error: Error): void {
    this.shutdownCause ??= error;
    for (const end of [...this.shutdownListeners]) end(this.shutdownCause);
  }

  /** The error open streams end with once the process shuts down; undefined while it serves. */
  get shutdownError(): Error | undefined {
    return this.shutdownCause;
  }

  /** Calls `end` when the process shuts down; answers the unsubscribe. */
  onShutdown(end: (error: Error) => void): () => void {
    this.shutdownListeners.add(end);
    return () => this.shutdownListeners.delete(end);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.pollTimer);
    this.listeners.clear();
    const client = this.client;
    this.client = undefined;
    await this.flushing.catch(() => {});
    await client?.end().catch(() => {});
    await this.pool.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.init.databaseUrl, application_name: EVENTS_APPLICATION_NAME });
    client.on("notification", (msg) => {
      if (msg.channel === EVENTS_CHANNEL) this.scheduleFlush();
    });
    client.on("error", (e) => this.lost(client, e));
    client.on("end", () => this.lost(client, new Error("connection ended")));
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    // The first horizon: events up to it were final before this hub existed, and are not "new".
    if (this.lastSeenId === undefined) this.lastSeenId = await this.horizon.advance();
    this.client = client;
    this.reconnectDelayMs = 250;
    this.pollTimer ??= setInterval(() => this.scheduleFlush(), this.init.pollMs ?? 50);
    this.pollTimer.unref();
    // Events committed while the connection was down were never notified to us: read them now.
    this.scheduleFlush();
  }

  private lost(client: pg.Client, e: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => {});
    if (this.closed) return;
    this.log(`event stream lost its database connection (${String(e)}); reconnecting`);
    const retry = () => {
      if (this.closed) return;
      this.connect().catch((err) => {
        this.log(`event stream reconnect failed: ${String(err)}`);
        this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 5_000);
        this.reconnectTimer = setTimeout(retry, this.reconnectDelayMs);
      });
    };
    this.reconnectTimer = setTimeout(retry, this.reconnectDelayMs);
  }

  // A tick or a notification only says "look"; one reader per process reads what is final since the last
  // dispatched id. Ticks and notifications while a read runs queue one more read, not one each.
  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.flushing = this.flushing
      .then(() => {
        this.flushQueued = false;
        return this.flush();
      })
      .catch((e) => this.log(`event fan-out failed: ${e}`));
  }

  private async flush(): Promise<void> {
    const client = this.client;
    if (!client || this.closed) return;
    const upTo = await this.horizon.advance();
    for (;;) {
      const events = await readEventsAfter(client, this.lastSeenId ?? 0n, upTo, HUB_PAGE);
      for (const event of events) {
        this.lastSeenId = BigInt(event.id);
        for (const listener of this.listeners) listener(event);
      }
      if (events.length < HUB_PAGE) return;
    }
  }
}

const HUB_PAGE = 1_000;

const SELECT_EVENTS = `SELECT id::text AS id, "workspaceId", "goalId", operator, actor, "subjectId", payload, "createdAt" FROM "Event"`;

interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Committed events after `afterId` and up to `upTo` (a horizon, or below one), in id order. Below the horizon no
 * running transaction can still commit an id, so nothing smaller than what this returns can appear later, and
 * resuming after the last id loses and repeats nothing.
 */
export async function readEventsAfter(db: Queryable, afterId: bigint, upTo: bigint, limit: number, goalId?: string, workspaceId?: string): Promise<StreamedEvent[]> {
  if (upTo <= afterId) return [];
  const r = await db.query<EventRow>(
    `${SELECT_EVENTS} WHERE id > $1::bigint AND id <= $5::bigint AND ($3::text IS NULL OR "goalId" = $3::text)
       AND ($4::text IS NULL OR "workspaceId" = $4::text)
     ORDER BY "Event".id LIMIT $2`,
    [String(afterId), limit, goalId ?? null, workspaceId ?? null, String(upTo)],
  );
  return r.rows.map(toStreamedEvent);
}

type EventRow = EventView;

function toStreamedEvent(row: EventRow): StreamedEvent {
  const { id, workspaceId, goalId, operator, actor, subjectId, payload, createdAt } = row;
  return { id, workspaceId, goalId, operator, actor, subjectId, payload, createdAt };
}

export interface StreamEventsInit {
  hub: EventHub;
  /** Resume after this event id (exclusive); without it the stream starts with the next new event. */
  lastEventId?: string | null | undefined;
  /** Only this workspace's events (the caller's): another workspace's events never reach a stream. */
  workspaceId: string;
  goalId?: string | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Decides the caller again, from current membership and tokens; an error it answers ends the stream with that
   * error. Run on every event of the workspace that changes someone's access (ACCESS_OPERATORS), before any later
   * event is delivered, so access that ended delivers nothing committed after it.
   */
  recheck?: () => Promise<Error | null>;
}

/** The events after which an open stream decides its caller again: membership and agent tokens. */
export const ACCESS_OPERATORS: ReadonlySet<string> = new Set(["member.remove", "member.setRole", "agentToken.revoke", "agentToken.reassign"]);

/** Cap on undelivered events per subscriber: past it the stream ends and the client resumes from its cursor. */
const MAX_BUFFERED = 5_000;
const BACKLOG_PAGE = 500;

/**
 * Events after `lastEventId` from the table, then live ones from the hub: each committed event once, in id order
 * (the order ids were drawn, which puts every cause before its effect). Both sources hand out events in id order with no gaps, so one cursor — the last id sent —
 * drops what the other already sent. Subscribes to the hub at once (not at the first read), so an SSE client that
 * has seen "connected" misses nothing after it.
 */
export async function openEventStream(init: StreamEventsInit): Promise<AsyncGenerator<StreamedEvent, void, undefined>> {
  const { hub, workspaceId, goalId, signal } = init;
  const matches = (e: StreamedEvent) => e.workspaceId === workspaceId && (goalId === undefined || e.goalId === goalId);
  const buffer: StreamedEvent[] = [];
  let wake: (() => void) | undefined;
  let overflowed = false;
  let closed = false;
  // The caller's re-decision after an access event: pending while it runs, its refusal ends the stream.
  let checking: Promise<void> | undefined;
  let refused: Error | undefined;
  const recheck = init.recheck;
  const unsubscribe = hub.subscribe((e) => {
    if (recheck && e.workspaceId === workspaceId && ACCESS_OPERATORS.has(e.operator)) {
      const previous = checking ?? Promise.resolve();
      const current: Promise<void> = previous
        .then(() => recheck())
        .then(
          (error) => {
            refused ??= error ?? undefined;
          },
          (error: unknown) => {
            refused ??= error instanceof Error ? error : new Error(String(error));
          },
        )
        .finally(() => {
          if (checking === current) checking = undefined;
          wake?.();
        });
      checking = current;
    }
    if (!matches(e)) return;
    if (buffer.length >= MAX_BUFFERED) overflowed = true;
    else buffer.push(e);
    wake?.();
  });
  if (hub.shutdownError) {
    unsubscribe();
    throw hub.shutdownError;
  }
  // A process shutting down ends the stream with the hub's error: its client resumes from its cursor on another process.
  const unshutdown = hub.onShutdown((error) => {
    refused ??= error;
    wake?.();
  });
  const close = () => {
    closed = true;
    unsubscribe();
    unshutdown();
    wake?.();
  };
  // Also when the stream is dropped before its first read (a generator that never started runs no `finally`).
  signal?.addEventListener("abort", close, { once: true });

  // A stream without lastEventId starts after the newest event committed now: the hub may still hand out events
  // committed before this subscription (its LISTEN lags the commit), and those are not "from now on". Read before
  // the stream is returned, so before tRPC sends "connected": what commits after the client sees it is delivered.
  let start: bigint;
  try {
    start = init.lastEventId ? BigInt(init.lastEventId) : await hub.lastCommittedId();
    // A cursor below what the retention pruned cannot be resumed without a gap: the typed answer says to reload.
    if (init.lastEventId) {
      const pruned = await hub.prunedThrough();
      if (start < pruned) throw eventsPruned(start, pruned);
    }
  } catch (e) {
    close();
    throw e;
  }

  return (async function* () {
    try {
      let cursor = start;
      if (init.lastEventId) {
        // Whatever the hub dispatched before we subscribed was committed before this read, so the backlog
        // plus the buffer leave no gap.
        for (;;) {
          const page = await hub.readAfter(cursor, BACKLOG_PAGE, goalId, workspaceId);
          // Pruned while this page was read: it may have a gap.
          const pruned = await hub.prunedThrough();
          if (cursor < pruned) throw eventsPruned(cursor, pruned);
          for (const event of page) {
            cursor = BigInt(event.id);
            yield event;
          }
          if (page.length < BACKLOG_PAGE || closed) break;
        }
      }
      while (!closed && !overflowed) {
        if (checking) await checking;
        if (refused) throw refused;
        const next = buffer.shift();
        if (next) {
          const id = BigInt(next.id);
          if (id > cursor) {
            cursor = id;
            yield next;
          }
          continue;
        }
        if (checking || refused) continue;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      signal?.removeEventListener("abort", close);
      close();
    }
  })();
}
