"use client";
import type { BoardCard } from "../../lib/labels.ts";
import { formatMicroUsd, LANE_LABEL } from "../../lib/labels.ts";
import { TimeLeft } from "../time-left.tsx";
import styles from "./board.module.css";

export function TodoCard({ card, changed }: { card: BoardCard; changed: boolean }) {
  const used = card.quotaUsed;
  const spent = used.steps > 0 || used.tokens > 0 || used.microUsd > 0;
  return (
    <article className={`${styles.card} ${changed ? styles.changed : ""}`} data-todo-id={card.id} data-state={card.state}>
      <header className={styles.cardHead}>
        <h3 className={styles.cardTitle}>{card.title}</h3>
        <span className={`${styles.pill} ${styles[`pill_${card.state}`]}`}>{LANE_LABEL[card.state]}</span>
      </header>
      <p className={styles.cardId}>{card.id}</p>

      {card.owner ? (
        <p className={styles.row} data-field="owner">
          <span className={styles.label}>Owner</span>
          <span>
            {card.owner.name} <span className={styles.muted}>({card.owner.agentId})</span>
            {card.leaseExpiresAt ? (
              <span className={styles.lease}>
                {" · "}
                <TimeLeft until={card.leaseExpiresAt} />
              </span>
            ) : null}
          </span>
        </p>
      ) : null}

      {card.openGate ? (
        <div className={styles.gate} data-field="gate">
          <span className={styles.label}>Waiting on a person</span>
          <p>{card.openGate.question}</p>
          <p className={styles.muted}>May answer: {card.openGate.answerRoles.join(", ")}</p>
        </div>
      ) : null}

      {card.status.state === "blocked" || card.status.state === "failed" ? (
        card.status.reason ? (
          <p className={styles.reason}>
            <span className={styles.label}>Why</span>
            {card.status.reason}
          </p>
        ) : null
      ) : null}

      {card.latestEvidence ? (
        <p className={styles.row} data-field="evidence">
          <span className={styles.label}>Latest</span>
          <span>
            {card.latestEvidence.summary} <span className={styles.muted}>({card.latestEvidence.kind.replace("_", " ")})</span>
          </span>
        </p>
      ) : null}

      <footer className={styles.cardFoot}>
        <span data-field="quota">
          {spent ? `${used.steps} steps · ${used.tokens.toLocaleString("en")} tokens · ${formatMicroUsd(used.microUsd)}` : "No quota spent"}
        </span>
        {card.attempts > 0 ? <span>{card.attempts} retries</span> : null}
      </footer>
    </article>
  );
}
