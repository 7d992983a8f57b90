"use client";
// The board's workers: every agent heard from lately — browser tabs standing by with their phone, headless
// workers — with its last heartbeat, so a person sees who can take the next todo.
import { useInfiniteQuery } from "@tanstack/react-query";
import { Monitor, Server } from "lucide-react";
import { useEffect, useState } from "react";
import { useTRPC } from "../../lib/trpc.ts";
import ui from "../ui/ui.module.css";
import { formatDuration } from "../time-left.tsx";
import styles from "./runner.module.css";

/** A worker silent longer than this is shown as gone quiet (the API's reaper decides for real). */
const QUIET_MS = 60_000;

export function WorkersStrip() {
  const trpc = useTRPC();
  // In pages of 100, newest registered first; "Show more workers" reads the next one.
  const agents = useInfiniteQuery(trpc.agent.list.infiniteQueryOptions({}, { getNextPageParam: (page) => page.nextCursor }));
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(timer);
  }, []);
  const list = (agents.data?.pages.flatMap((p) => p.items) ?? []).filter((a) => now !== null && now - new Date(a.heartbeatAt).getTime() < 15 * 60_000);
  if ((list.length === 0 && !agents.hasNextPage) || now === null) return null;
  return (
    <section className={styles.workers} aria-label="Workers" data-testid="workers">
      <h2 className={styles.workersTitle}>Workers</h2>
      <ul>
        {list.map((a) => {
          const ago = now - new Date(a.heartbeatAt).getTime();
          return (
            <li key={a.id} data-agent-id={a.id} className={ago > QUIET_MS ? styles.quiet : undefined}>
              {a.kind === "browser" ? <Monitor size={14} aria-hidden /> : <Server size={14} aria-hidden />} <strong>{a.name}</strong>
              {a.device ? ` · ${a.device.model}` : ""} · heartbeat {ago < 5000 ? "just now" : `${formatDuration(ago)} ago`}
              {a.holding > 0 ? ` · holds ${a.holding} todo${a.holding === 1 ? "" : "s"}` : " · free"}
            </li>
          );
        })}
      </ul>
      {agents.hasNextPage ? (
        <button type="button" className={ui.button} disabled={agents.isFetchingNextPage} onClick={() => void agents.fetchNextPage()}>
          Show more workers
        </button>
      ) : null}
    </section>
  );
}
