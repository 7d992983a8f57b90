"use client";
// One event-stream subscription per tab. Each committed change marks the queries it can affect stale and refetches
// the ones on screen; a burst of events costs one refetch after the one in flight, never a pile of parallel ones.
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { subscribeEvents, type StreamedEvent } from "@phoneloop/client";
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { useApi } from "./api.tsx";
import { isLive, runGoals, touches } from "./live-scope.ts";

export type StreamState = "connecting" | "live" | "reconnecting";

const StreamContext = createContext<StreamState>("connecting");

/** Whether the event stream is connected: pages show it, so a person knows the board is current. */
export function useStreamState(): StreamState {
  return useContext(StreamContext);
}

export function LiveCacheProvider({ children }: { children: ReactNode }) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  const [stream, setStream] = useState<StreamState>("connecting");

  useEffect(() => {
    const refresh = coalescingRefresh(queryClient);
    const sub = subscribeEvents(client, {}, {
      // On every (re)connect, whatever happened while we were away is in the next load.
      onStarted: () => {
        setStream("live");
        refresh(null);
      },
      onEvent: (event) => refresh(event),
      onConnectionState: (c) => setStream((s) => (c === "live" ? "live" : s === "live" ? "reconnecting" : s)),
      onError: () => setStream("reconnecting"),
    });
    return () => sub.unsubscribe();
  }, [client, queryClient]);

  return <StreamContext.Provider value={stream}>{children}</StreamContext.Provider>;
}

function coalescingRefresh(queryClient: QueryClient): (event: StreamedEvent | null) => void {
  let inFlight = false;
  let again = false;
  // Goals the events since the last refresh touched; "all" after a (re)connect or an event without a goal.
  let pendingGoals: Set<string> | "all" = new Set();
  const run = async () => {
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    try {
      do {
        again = false;
        const goals = pendingGoals;
        pendingGoals = new Set();
        const runGoal = runGoals(queryClient);
        await queryClient.invalidateQueries({ predicate: (q) => isLive(q.queryKey) && touches(q.queryKey, goals, runGoal) });
      } while (again);
    } finally {
      inFlight = false;
    }
  };
  return (event) => {
    if (!event || !event.goalId) pendingGoals = "all";
    else if (pendingGoals !== "all") pendingGoals.add(event.goalId);
    void run();
  };
}
