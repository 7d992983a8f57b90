"use client";
// Loads a projection from the API, then reloads it whenever the event stream reports a change. Several events
// in a burst cause one reload after the one in flight, never a pile of parallel requests.
import { useEffect, useState } from "react";
import { subscribeEvents } from "@phoneloop/client";
import { describeProblem, useApi, type ApiClient, type LoadProblem } from "./api.tsx";

export type StreamState = "connecting" | "live" | "reconnecting";

export interface LiveQuery<T> {
  data: T | undefined;
  problem: LoadProblem | undefined;
  stream: StreamState;
  /** Bumped on every successful load, so views can mark what changed. */
  loads: number;
}

export function useLiveQuery<T>(
  key: string,
  load: (client: ApiClient) => Promise<T>,
  scope: { goalId?: string } = {},
): LiveQuery<T> {
  const { client, apiUrl } = useApi();
  const [state, setState] = useState<LiveQuery<T>>({ data: undefined, problem: undefined, stream: "connecting", loads: 0 });

  useEffect(() => {
    let cancelled = false;
    let inFlight = false;
    let again = false;

    const refresh = async () => {
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      do {
        again = false;
        try {
          const data = await load(client);
          if (!cancelled) setState((s) => ({ ...s, data, problem: undefined, loads: s.loads + 1 }));
        } catch (e) {
          if (!cancelled) setState((s) => ({ ...s, problem: describeProblem(e, apiUrl) }));
        }
      } while (again && !cancelled);
      inFlight = false;
    };

    void refresh();
    const sub = subscribeEvents(client, scope.goalId ? { goalId: scope.goalId } : {}, {
      // On every (re)connect: whatever happened while we were away is in the next load.
      onStarted: () => {
        if (cancelled) return;
        setState((s) => ({ ...s, stream: "live" }));
        void refresh();
      },
      onEvent: () => void refresh(),
      onConnectionState: (c) => {
        if (cancelled) return;
        if (c === "connecting") setState((s) => ({ ...s, stream: s.stream === "live" ? "reconnecting" : s.stream }));
        if (c === "live") setState((s) => ({ ...s, stream: "live" }));
      },
      onError: () => {
        if (!cancelled) setState((s) => ({ ...s, stream: "reconnecting" }));
      },
    });
    return () => {
      cancelled = true;
      sub.unsubscribe();
    };
    // `load` may be a fresh closure each render; the key (with the client and goal) says when to start over.
  }, [client, apiUrl, key, scope.goalId]);

  return state;
}
