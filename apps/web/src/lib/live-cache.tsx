"use client";
// One event-stream subscription per tab. Each committed change marks the queries it can affect stale and refetches
// the ones on screen; a burst of events costs one refetch after the one in flight, never a pile of parallel ones.
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { subscribeEvents, type StreamedEvent } from "@phoneloop/client";
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { useApi } from "./api.tsx";

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

/** Procedures whose answers an event can change; everything else (health, one blob) is immutable or local. */
const LIVE_ROUTERS = new Set(["board", "gate", "todo", "evidence", "goal", "run", "quota", "agent", "lease", "turn", "suite"]);

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
        await queryClient.invalidateQueries({ predicate: (q) => isLive(q.queryKey) && touches(q.queryKey, goals) });
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

/** A query scoped to one goal is refreshed only by that goal's events; unscoped ones by every event. */
function touches(key: readonly unknown[], goals: Set<string> | "all"): boolean {
  if (goals === "all") return true;
  const input = (key[1] as { input?: { goalId?: unknown } } | undefined)?.input;
  return typeof input?.goalId !== "string" || goals.has(input.goalId);
}

// tRPC query keys start with the procedure path, e.g. [["board", "get"], { input, type }].
function isLive(key: readonly unknown[]): boolean {
  const path = key[0];
  return Array.isArray(path) && typeof path[0] === "string" && LIVE_ROUTERS.has(path[0]);
}
