"use client";
// Worker mode: this tab, with its phone, stands by and takes eligible todos as teammates create them.
import { formatAgo } from "../../lib/labels.ts";
import { useConnectedPhone } from "../device/phone-store.tsx";
import { useRunner } from "./runner-store.tsx";
import styles from "./runner.module.css";

export function WorkerToggle() {
  const runner = useRunner();
  const phone = useConnectedPhone();
  return (
    <div className={styles.worker}>
      <label>
        <input type="checkbox" checked={runner.standBy} disabled={!phone} onChange={(e) => runner.setStandBy(e.target.checked)} /> Worker mode: stand by and take eligible
        todos as teammates create them
      </label>
      {runner.standBy ? (
        <span className={styles.note} data-testid="worker-heartbeat">
          {runner.lastHeartbeat ? `Standing by as ${runner.agentId} · heartbeat ${formatAgo(new Date(runner.lastHeartbeat), Date.now())}` : "Registering…"}
        </span>
      ) : !phone ? (
        <span className={styles.note}>Connect a phone to stand by.</span>
      ) : null}
    </div>
  );
}
