"use client";
// The run this tab is driving (or drove last), wherever the person is: worker mode starts runs nobody clicked.
import Link from "next/link";
import ui from "../ui/ui.module.css";
import { RunProgressView } from "./run-progress.tsx";
import { useRunner } from "./runner-store.tsx";
import styles from "./runner.module.css";

export function CurrentRun() {
  const runner = useRunner();
  const p = runner.progress;
  if (!p) return null;
  return (
    <section className={styles.panel} aria-label="This tab's run">
      <div className={styles.row}>
        <h2 className={styles.heading}>This tab&apos;s run</h2>
        {p.goalId ? <Link href={`/goals/${encodeURIComponent(p.goalId)}`}>Open its goal</Link> : null}
        {runner.busy ? (
          <button type="button" className={`${ui.button} ${ui.danger}`} disabled={p.phase === "stopping"} onClick={() => runner.cancelRun()}>
            {p.phase === "stopping" ? "Stopping…" : "Cancel run"}
          </button>
        ) : null}
      </div>
      <RunProgressView progress={p} />
    </section>
  );
}
