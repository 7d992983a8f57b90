// The event stream's consumer: every state change as it commits (SSE), resumed after the last event seen when the
// connection drops (httpSubscriptionLink sends lastEventId on reconnect).
import type { StreamedEvent } from "@phoneloop/api/contract";
import type { ApiClient } from "./api-client.ts";

export type { StreamedEvent } from "@phoneloop/api/contract";

export interface EventHandlers {
  onEvent(event: StreamedEvent): void;
  /** The stream is live: an event committed from now on is delivered. */
  onStarted?(): void;
  /** The stream failed and will not reconnect by itself. */
  onError?(error: unknown): void;
  /** The connection is being (re)established, or is live again. */
  onConnectionState?(state: "connecting" | "live"): void;
}

export interface EventSubscription {
  unsubscribe(): void;
}

export function subscribeEvents(client: ApiClient, filter: { goalId?: string; lastEventId?: string }, handlers: EventHandlers): EventSubscription {
  return client.event.stream.subscribe(
    { ...(filter.goalId ? { goalId: filter.goalId } : {}), ...(filter.lastEventId ? { lastEventId: filter.lastEventId } : {}) },
    {
      onStarted: () => handlers.onStarted?.(),
      onData: ({ data }) => handlers.onEvent(data),
      onError: (e) => handlers.onError?.(e),
      onConnectionStateChange: (c) => {
        if (c.state === "connecting") handlers.onConnectionState?.("connecting");
        if (c.state === "pending") handlers.onConnectionState?.("live");
      },
    },
  );
}
