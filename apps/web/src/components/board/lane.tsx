"use client";
// One lane of the board. Only the cards in view are in the DOM (@tanstack/react-virtual), so a lane of 1,000
// todos scrolls and updates as fast as one of ten. Done and Failed start folded to their count: finished work
// would otherwise take the width the work in progress needs. Folding changes what is shown, never where a card is.
// By keyboard: Tab reaches each lane's current card (one per lane, a roving tab stop), the arrow keys move between
// cards (up and down in a lane, left and right across lanes), Home and End go to a lane's first and last card,
// Enter opens the card's gate or its latest run, and the card's own buttons are its operators.
import { useVirtualizer } from "@tanstack/react-virtual";
import { ChevronLeft, ChevronRight } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { LANE_HINT, LANE_LABEL, type BoardCard, type TodoState } from "../../lib/labels.ts";
import ui from "../ui/ui.module.css";
import { TodoCard } from "./todo-card.tsx";
import { LaneWipBadge, type LaneWip } from "./wip-limits.tsx";
import styles from "./board.module.css";

/** Lanes shown folded to their count until someone opens them. */
const FOLDED: ReadonlySet<TodoState> = new Set(["done", "failed"]);

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
  /** A held lane's count across the workspace against its WIP limit (the goal's board only). */
  wip?: LaneWip;
}

export function Lane(props: LaneProps) {
  const foldable = FOLDED.has(props.state);
  const [open, setOpen] = useState(!foldable);
  // The toggle is a new button once the lane folds or opens: the focus moves to it, so a keyboard user stays put.
  const toggled = useRef(false);
  const toggle = (next: boolean) => {
    toggled.current = true;
    setOpen(next);
  };
  const focusIfToggled = (el: HTMLButtonElement | null) => {
    if (el && toggled.current) {
      toggled.current = false;
      el.focus();
    }
  };
  const { state, cards } = props;
  const headingId = `lane-${state}`;
  const listId = `lane-${state}-cards`;
  const fold = foldable ? <FoldToggle state={state} count={cards.length} open={open} controls={listId} onToggle={() => toggle(!open)} focusRef={focusIfToggled} /> : null;
  if (!open) {
    return (
      <section className={`${styles.lane} ${styles.laneFolded}`} data-lane={state} data-collapsed="true" aria-labelledby={headingId}>
        <LaneHead state={state} count={cards.length} headingId={headingId} wip={props.wip ?? null} />
        {fold}
      </section>
    );
  }
  return <OpenLane {...props} listId={listId} headingId={headingId} hide={fold} />;
}

function LaneHead({ state, count, headingId, wip }: { state: TodoState; count: number; headingId: string; wip: LaneWip }) {
  return (
    <header className={styles.laneHead}>
      <h2 id={headingId}>
        {LANE_LABEL[state]} <span className={styles.count}>{count}</span> <LaneWipBadge state={state} wip={wip} />
      </h2>
      <p>{LANE_HINT[state]}</p>
    </header>
  );
}

/** Shows or hides a foldable lane's cards; the words say which and how many. */
function FoldToggle(p: { state: TodoState; count: number; open: boolean; controls: string; onToggle(): void; focusRef(el: HTMLButtonElement | null): void }) {
  const what = `${LANE_LABEL[p.state].toLowerCase()} ${p.count === 1 ? "todo" : "todos"}`;
  return (
    <button type="button" className={ui.button} aria-expanded={p.open} aria-controls={p.open ? p.controls : undefined} onClick={p.onToggle} ref={p.focusRef}>
      {p.open ? (
        <>
          <ChevronLeft size={14} aria-hidden /> Hide the {what}
        </>
      ) : (
        <>
          Show the {p.count} {what} <ChevronRight size={14} aria-hidden />
        </>
      )}
    </button>
  );
}

function OpenLane({ state, cards, changed, stepLimit, tools, wip, listId, headingId, hide }: LaneProps & { listId: string; headingId: string; hide: ReactNode }) {
  const scroller = useRef<HTMLDivElement>(null);
  const router = useRouter();
  const virtual = useVirtualizer({
    count: cards.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 170,
    overscan: 4,
    getItemKey: (i) => cards[i]!.card.id,
  });
  // The lane's tab stop: one card; the arrow keys move it (and the focus, once the card is rendered).
  const [current, setCurrent] = useState(0);
  const focusWanted = useRef(false);
  const at = Math.min(current, Math.max(0, cards.length - 1));
  useEffect(() => {
    if (!focusWanted.current) return;
    const el = scroller.current?.querySelector<HTMLElement>(`[data-index="${at}"] article`);
    if (el) {
      focusWanted.current = false;
      el.focus();
    }
  });
  const go = (i: number) => {
    const next = Math.max(0, Math.min(cards.length - 1, i));
    focusWanted.current = true;
    setCurrent(next);
    virtual.scrollToIndex(next, { align: "auto" });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const card = (e.target as HTMLElement).closest("article[data-todo-id]");
    // Keys on a card's own buttons and fields are theirs.
    if (!card || card !== e.target) return;
    const i = Number(card.closest("[data-index]")?.getAttribute("data-index") ?? at);
    const key = e.key;
    if (key === "ArrowDown" || key === "ArrowUp" || key === "Home" || key === "End") {
      e.preventDefault();
      go(key === "ArrowDown" ? i + 1 : key === "ArrowUp" ? i - 1 : key === "Home" ? 0 : cards.length - 1);
    } else if (key === "ArrowRight" || key === "ArrowLeft") {
      e.preventDefault();
      focusNeighbourLane(card.closest("section[data-lane]"), key === "ArrowRight" ? 1 : -1);
    } else if (key === "Enter") {
      const c = cards[i]?.card;
      const href = c?.openGate ? `/gates/${encodeURIComponent(c.openGate.id)}` : c?.latestRun ? `/runs/${encodeURIComponent(c.latestRun.id)}` : null;
      if (href) {
        e.preventDefault();
        router.push(href);
      }
    }
  };
  return (
    <section className={styles.lane} data-lane={state} data-collapsed="false" aria-labelledby={headingId} id={listId}>
      <LaneHead state={state} count={cards.length} headingId={headingId} wip={wip ?? null} />
      {tools || hide ? (
        <div className={styles.laneTools}>
          {tools}
          {hide}
        </div>
      ) : null}
      {cards.length === 0 ? (
        <p className={styles.laneEmpty}>Nothing here</p>
      ) : (
        <div ref={scroller} className={styles.laneScroll} aria-label={`${LANE_LABEL[state]} todos, ${cards.length}`} onKeyDown={onKeyDown}>
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
                    tabStop={item.index === at}
                    onFocusCard={() => setCurrent(item.index)}
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

/** Moves the focus to the next lane that way with a card: its current card, or its fold toggle when folded. Empty lanes are passed over. */
function focusNeighbourLane(from: Element | null, step: 1 | -1): void {
  const lanes = [...document.querySelectorAll<HTMLElement>("section[data-lane]")];
  for (let i = (from ? lanes.indexOf(from as HTMLElement) : -1) + step; i >= 0 && i < lanes.length; i += step) {
    const lane = lanes[i]!;
    const target = lane.querySelector<HTMLElement>('article[data-todo-id][tabindex="0"]') ?? (lane.dataset.collapsed === "true" ? lane.querySelector<HTMLElement>("button[aria-expanded]") : null);
    if (target) {
      target.focus();
      return;
    }
  }
}
