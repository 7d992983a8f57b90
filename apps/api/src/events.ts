// The live event stream. Every state change appends an Event row whose insert trigger runs
// pg_notify('phoneloop_events', id); one dedicated LISTEN connection per process reads each notified row
// once and fans it out to that process's subscribers, so any number of API processes can share one database.
import pg from "pg";
import type { Db, EventView } from "@phoneloop/state";

export const EVENTS_CHANNEL = "phoneloop_events";
/** How the LISTEN connection shows in pg_stat_activity. */
export const EVENTS_APPLICATION_NAME = "phoneloop-api-events";

/** An Event row as the history projection returns it; its id (a decimal string) is the stream's resume cursor. */
export type StreamedEvent = EventView;

type Listener = (event: StreamedEvent) => void;

export interface EventHubInit {
  databaseUrl: string;
  onLog?: (line: string) => void;
}

export class EventHub {
  private client: pg.Client | undefined;
  private readonly listeners = new Set<Listener>();
  private pendingIds: string[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private lastSeenId: bigint | undefined;
  private readonly dispatched = new Set<string>();
  private readonly dispatchedOrder: string[] = [];
  private closed = false;
  private reconnectDelayMs = 250;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly log: (line: string) => void;

  constructor(private readonly init: EventHubInit) {
    this.log = init.onLog ?? (() => {});
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

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.listeners.clear();
    const client = this.client;
    this.client = undefined;
    await this.flushing.catch(() => {});
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.init.databaseUrl, application_name: EVENTS_APPLICATION_NAME });
    client.on("notification", (msg) => {
      if (msg.channel !== EVENTS_CHANNEL || !msg.payload) return;
      this.pendingIds.push(msg.payload);
      this.scheduleFlush();
    });
    client.on("error", (e) => this.lost(client, e));
    client.on("end", () => this.lost(client, new Error("connection ended")));
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    const wasConnected = this.lastSeenId !== undefined;
    this.client = client;
    this.reconnectDelayMs = 250;
    if (wasConnected) {
      // Events committed while the connection was down were never notified to us: read them now.
      this.flushing = this.flushing.then(() => this.catchUp(client)).catch((e) => this.log(`event catch-up failed: ${e}`));
    } else {
      const r = await client.query<{ max: string | null }>(`SELECT max(id)::text AS max FROM "Event"`);
      this.lastSeenId = BigInt(r.rows[0]?.max ?? "0");
    }
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

  private scheduleFlush(): void {
    this.flushing = this.flushing.then(() => this.flush()).catch((e) => this.log(`event fan-out failed: ${e}`));
  }

  // Notifications only carry ids; one query per burst reads the rows, in id order, for every subscriber. It also
  // reads committed rows between the last one seen and the newest notified one, in case an announcement was lost
  // (announcing after commit can fail); `dispatched` keeps any row from going out twice.
  private async flush(): Promise<void> {
    const ids = this.pendingIds;
    if (ids.length === 0 || !this.client) return;
    this.pendingIds = [];
    const newest = ids.reduce((m, id) => (BigInt(id) > m ? BigInt(id) : m), 0n);
    const rows = await this.client.query<EventRow>(
      `${SELECT_EVENTS} WHERE id = ANY($1::bigint[]) OR (id > $2::bigint AND id < $3::bigint) ORDER BY id`,
      [ids, String(this.lastSeenId ?? newest), String(newest)],
    );
    this.dispatch(rows.rows.map(toStreamedEvent));
  }

  private async catchUp(client: pg.Client): Promise<void> {
    const rows = await client.query<EventRow>(`${SELECT_EVENTS} WHERE id > $1::bigint ORDER BY id LIMIT 10000`, [
      String(this.lastSeenId ?? 0n),
    ]);
    this.dispatch(rows.rows.map(toStreamedEvent));
  }

  private dispatch(events: StreamedEvent[]): void {
    for (const event of events) {
      if (this.dispatched.has(event.id)) continue;
      this.dispatched.add(event.id);
      this.dispatchedOrder.push(event.id);
      if (this.dispatchedOrder.length > RECENT_IDS) this.dispatched.delete(this.dispatchedOrder.shift()!);
      const id = BigInt(event.id);
      if (this.lastSeenId === undefined || id > this.lastSeenId) this.lastSeenId = id;
      for (const listener of this.listeners) listener(event);
    }
  }
}

/** How many recently dispatched ids are remembered to drop a repeat (a late notify of a gap-filled row). */
const RECENT_IDS = 20_000;

const SELECT_EVENTS = `SELECT id::text AS id, "workspaceId", "goalId", operator, actor, "subjectId", payload, "createdAt" FROM "Event"`;

type EventRow = EventView;

function toStreamedEvent(row: EventRow): StreamedEvent {
  return { ...row };
}

export interface StreamEventsInit {
  db: Db;
  hub: EventHub;
  /** Resume after this event id (exclusive); without it the stream starts with the next new event. */
  lastEventId?: string | null | undefined;
  /** Only this workspace's events (the caller's): another workspace's events never reach a stream. */
  workspaceId: string;
  goalId?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Cap on undelivered events per subscriber: past it the stream ends and the client resumes from its cursor. */
const MAX_BUFFERED = 5_000;
const BACKLOG_PAGE = 500;

/**
 * Events after `lastEventId` from the table, then live ones from the hub, without gaps or repeats. Subscribes to
 * the hub at once (not at the first read), so an SSE client that has seen "connected" misses nothing after it.
 */
export function openEventStream(init: StreamEventsInit): AsyncGenerator<StreamedEvent, void, undefined> {
  const { db, hub, workspaceId, goalId, signal } = init;
  const matches = (e: StreamedEvent) => e.workspaceId === workspaceId && (goalId === undefined || e.goalId === goalId);
  const buffer: StreamedEvent[] = [];
  let wake: (() => void) | undefined;
  let overflowed = false;
  let closed = false;
  const unsubscribe = hub.subscribe((e) => {
    if (!matches(e)) return;
    if (buffer.length >= MAX_BUFFERED) overflowed = true;
    else buffer.push(e);
    wake?.();
  });
  const close = () => {
    closed = true;
    unsubscribe();
    wake?.();
  };
  // Also when the stream is dropped before its first read (a generator that never started runs no `finally`).
  signal?.addEventListener("abort", close, { once: true });

  return (async function* () {
    try {
      const sentFromBacklog = new Set<string>();
      const resumedAfter = init.lastEventId ? BigInt(init.lastEventId) : -1n;
      if (init.lastEventId) {
        let cursor = BigInt(init.lastEventId);
        for (;;) {
          const rows = await db.event.findMany({
            where: { id: { gt: cursor }, workspaceId, ...(goalId === undefined ? {} : { goalId }) },
            orderBy: { id: "asc" },
            take: BACKLOG_PAGE,
          });
          for (const row of rows) {
            const event: StreamedEvent = { ...row, id: row.id.toString() };
            sentFromBacklog.add(event.id);
            yield event;
            cursor = row.id;
          }
          if (rows.length < BACKLOG_PAGE || closed) break;
        }
      }
      while (!closed && !overflowed) {
        const next = buffer.shift();
        if (next) {
          // A late announcement of an event the client already had (≤ its cursor) or that the backlog sent.
          if (BigInt(next.id) > resumedAfter && !sentFromBacklog.has(next.id)) yield next;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      signal?.removeEventListener("abort", close);
      close();
    }
  })();
}
