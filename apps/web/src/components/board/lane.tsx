"use client";
// One lane of the board. Only the cards in view are in the DOM (@tanstack/react-virtual), so a lane of 1,000
// todos scrolls and updates as fast as one of ten.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef, type ReactNode } from "react";
import { LANE_HINT, LANE_LABEL, type BoardCard, type TodoState } from "../../lib/labels.ts";
import { TodoCard } from "./todo-card.tsx";
import styles from "./board.module.css";

/** A card and the goal it belongs to (the board across goals mixes goals in one lane). */
export interface LaneCard {
  card: BoardCard;
  goalId: string;
  /** Shown on the card when the lane mixes goals. */
  goalTitle?: string;
}

export interface LaneProps {
  state: TodoState;
  cards: LaneCard[];
  changed: Set<string>;
  stepLimit: number | null;
  tools?: ReactNode;
}

export function Lane({ state, cards, changed, stepLimit, tools }: LaneProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: cards.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 170,
    overscan: 4,
    getItemKey: (i) => cards[i]!.card.id,
  });
  const headingId = `lane-${state}`;
  return (
    <section className={styles.lane} data-lane={state} aria-labelledby={headingId}>
      <header className={styles.laneHead}>
        <h2 id={headingId}>
          {LANE_LABEL[state]} <span className={styles.count}>{cards.length}</span>
        </h2>
        <p>{LANE_HINT[state]}</p>
      </header>
      {tools ? <div className={styles.laneTools}>{tools}</div> : null}
      {cards.length === 0 ? (
        <p className={styles.laneEmpty}>Nothing here</p>
      ) : (
        <div ref={scroller} className={styles.laneScroll} tabIndex={0} aria-label={`${LANE_LABEL[state]} todos, ${cards.length}`}>
          <div className={styles.laneInner} style={{ height: virtual.getTotalSize() }} role="list">
            {virtual.getVirtualItems().map((item) => {
              const { card, goalId, goalTitle } = cards[item.index]!;
              // Reordering stays within one goal's plan.
              const sameGoal = (i: number) => (cards[i]?.goalId === goalId ? cards[i]!.card.id : undefined);
              return (
                <div
                  key={item.key}
                  ref={virtual.measureElement}
                  data-index={item.index}
                  className={styles.slot}
                  style={{ transform: `translateY(${item.start}px)` }}
                  role="listitem"
                  aria-setsize={cards.length}
                  aria-posinset={item.index + 1}
                >
                  <TodoCard
                    card={card}
                    goalTitle={goalTitle}
                    changed={changed.has(card.id)}
                    stepLimit={stepLimit}
                    neighbours={{ goalId, before: sameGoal(item.index - 1), after: sameGoal(item.index + 1) }}
                  />
                </div>
              );
            })}
          </div>
        </div>
      )}
    </section>
  );
}
