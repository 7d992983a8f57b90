"use client";
// With a phone connected: the workspace's active goals, one click from running on it (client-side links keep the
// phone connected; a full page load would close its connection).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../../lib/trpc.ts";
import styles from "./device.module.css";

export function PhoneGoals() {
  const trpc = useTRPC();
  const goals = useQuery(trpc.board.goals.queryOptions({}));
  const active = (goals.data?.items ?? []).filter((g) => g.status === "active" || g.status === "paused");
  return (
    <section className={styles.help} aria-label="Goals to run on this phone">
      <h2>Run a goal on this phone</h2>
      {active.length === 0 ? (
        <p className={styles.note}>
          No active goal yet. <Link href="/goals/new">Create one</Link>, from scratch or from a built-in task.
        </p>
      ) : (
        <ul className={styles.goals}>
          {active.map((g) => (
            <li key={g.id}>
              <Link href={`/goals/${encodeURIComponent(g.id)}`}>{g.title}</Link> <span className={styles.note}>({g.status})</span>
            </li>
          ))}
          <li>
            <Link href="/goals/new">New goal…</Link>
          </li>
        </ul>
      )}
    </section>
  );
}
