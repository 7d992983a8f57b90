"use client";
import { useEffect, useState } from "react";

/** "4m 10s left" until `until`, ticking each second; "expired" after. */
export function TimeLeft({ until }: { until: Date }) {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (now === null) return <span>…</span>;
  const ms = until.getTime() - now;
  if (ms <= 0) return <span data-expired>lease expired</span>;
  return <span>{formatDuration(ms)} left</span>;
}

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${m % 60}m`;
}
