"use client";
import { blobUrl } from "@phoneloop/api/contract";
import Link from "next/link";
import { useApi } from "../../lib/api.tsx";
import type { BoardCard } from "../../lib/labels.ts";
import { formatMicroUsd, LANE_LABEL } from "../../lib/labels.ts";
import { gateWaitOf, plainQuestion } from "../../lib/plain-question.ts";
import { TimeLeft } from "../time-left.tsx";
import { CopyId } from "./copy-id.tsx";
import { TodoOperators, type Neighbours } from "./todo-operators.tsx";
import styles from "./board.module.css";

export interface TodoCardProps {
  card: BoardCard;
  changed: boolean;
  neighbours: Neighbours;
  stepLimit: number | null;
  goalTitle?: string | undefined;
  /** Whether the card is its lane's tab stop (the arrow keys move it between cards). */
  tabStop?: boolean;
  onFocusCard?: () => void;
}

export function TodoCard({ card, changed, neighbours, stepLimit, goalTitle, tabStop = false, onFocusCard }: TodoCardProps) {
  const { apiUrl } = useApi();
  const used = card.quotaUsed;
  const spent = used.steps > 0 || used.tokens > 0 || used.microUsd > 0;
  return (
    <article
      className={`${styles.card} ${changed ? styles.changed : ""}`}
      data-todo-id={card.id}
      data-state={card.state}
      aria-label={card.title}
      aria-describedby={`${card.id}-keys`}
      tabIndex={tabStop ? 0 : -1}
      onFocus={(e) => {
        if (e.target === e.currentTarget) onFocusCard?.();
      }}
    >
      <span id={`${card.id}-keys`} hidden>
        Arrow keys move between cards; Enter opens {card.openGate ? "its gate" : card.latestRun ? "its latest run" : "nothing yet"}.
      </span>
      {card.latestScreenshot ? (
        // A plain <img>: the blob URL is immutable and cached by the browser; nothing for an image optimiser to do.
        <img className={styles.thumb} src={blobUrl(apiUrl, card.latestScreenshot.sha256)} alt={`Latest screenshot of "${card.title}"`} loading="lazy" data-field="thumbnail" />
      ) : null}
      <header className={styles.cardHead}>
        <h3 className={styles.cardTitle}>{card.title}</h3>
        <span className={styles.cardTags}>
          <span className={`${styles.pill} ${styles[`pill_${card.state}`]}`}>{LANE_LABEL[card.state]}</span>
          <CopyId id={card.id} what={card.title} />
        </span>
      </header>
      {goalTitle ? (
        <p className={styles.row} data-field="goal">
          <span className={styles.label}>Goal</span>
          <Link href={`/goals/${encodeURIComponent(neighbours.goalId)}`}>{goalTitle}</Link>
        </p>
      ) : null}

      {card.owner ? (
        <p className={styles.row} data-field="owner">
          <span className={styles.label}>Owner</span>
          <span>
            <span title={card.owner.agentId}>{card.owner.name}</span>
            {card.leaseExpiresAt ? (
              <span className={styles.lease} data-field="lease">
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
          <p className={styles.gateQuestion}>{plainQuestion(card.openGate.question).question}</p>
          <p className={styles.muted}>May answer: {card.openGate.answerRoles.join(", ")}</p>
        </div>
      ) : null}

      {(card.status.state === "blocked" || card.status.state === "failed") && card.status.reason && !isGateReason(card) ? (
        <p className={styles.reason}>
          <span className={styles.label}>Why</span>
          {card.status.reason}
        </p>
      ) : null}

      {card.latestEvidence ? (
        <p className={styles.row} data-field="evidence">
          <span className={styles.label}>Latest</span>
          <span>
            {card.latestEvidence.summary} <span className={styles.muted}>({card.latestEvidence.kind.replace("_", " ")})</span>
          </span>
        </p>
      ) : null}

      <footer className={styles.cardFoot} data-field="quota">
        <span style={{ flex: 1 }}>
          {spent ? `${used.steps} steps · ${used.tokens.toLocaleString("en")} tokens · ${formatMicroUsd(used.microUsd)}` : "No quota spent"}
          {stepLimit !== null ? (
            <meter className={styles.quotaBar} min={0} max={stepLimit} value={Math.min(used.steps, stepLimit)} aria-label={`Steps used: ${used.steps} of the goal's ${stepLimit}`} />
          ) : null}
        </span>
        {card.attempts > 0 ? <span>{card.attempts} retries</span> : null}
      </footer>
      <TodoOperators card={card} neighbours={neighbours} />
    </article>
  );
}

/** A blocked todo's reason that is its open gate's (the card's gate part already says it, in plain words). */
function isGateReason(card: BoardCard): boolean {
  return card.openGate !== null && card.status.state === "blocked" && gateWaitOf(card.status.reason) === card.openGate.id;
}
