"use client";
import type { StreamState } from "../lib/live-cache.tsx";
import styles from "./live-badge.module.css";

const LABEL: Record<StreamState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
};

export function LiveBadge({ state }: { state: StreamState }) {
  return (
    <span className={`${styles.badge} ${styles[state]}`} data-stream={state} title="Updates arrive as the state changes">
      <span className={styles.dot} aria-hidden />
      {LABEL[state]}
    </span>
  );
}
