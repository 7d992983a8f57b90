"use client";
// The screenshot with the pending action drawn on it: a ring where the tap lands, an arrow for a swipe or scroll,
// the text to type in a banner. Drawn in the action's own 0–1000 coordinates, stretched over the image.
import type { RecordedAction } from "@phoneloop/api/contract";
import { describePending, targetOf, type ScreenView } from "../../lib/action-words.ts";
import styles from "./gate.module.css";

const SCROLL_VECTOR = { up: [0, -250], down: [0, 250], left: [-250, 0], right: [250, 0] } as const;

export function ActionOverlay({ src, observation, action }: { src: string; observation: ScreenView; action: RecordedAction | null }) {
  const { width, height } = observation.screen;
  const target = action ? targetOf(action, observation.elements) : null;
  const arrow =
    (action?.type === "drag" || action?.type === "swipe") && action.from && action.to
      ? { from: action.from, to: action.to }
      : action?.type === "scroll" && action.direction
        ? (() => {
            const at = target ?? { x: 500, y: 500 };
            const [dx, dy] = SCROLL_VECTOR[action.direction];
            return { from: at, to: { x: at.x + dx, y: at.y + dy } };
          })()
        : null;
  const typed = action && (action.type === "input_text" || action.type === "click_then_type" || action.type === "type") ? action.text : undefined;
  return (
    <figure className={styles.shot} style={{ aspectRatio: `${width} / ${height}` }} data-testid="gate-screenshot">
      {/* elementtiming: the browser times the screenshot's first paint (Element Timing); the replay benchmark reads it. */}
      <img elementtiming="phone-screenshot" src={src} alt={action ? `The phone's screen before: ${describePending(action, observation.elements)}` : "The phone's screen when the gate opened"} />
      {action ? (
        <svg viewBox="0 0 1000 1000" preserveAspectRatio="none" aria-hidden data-action={action.type}>
          <defs>
            <marker id="head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="#e5484d" />
            </marker>
          </defs>
          {target && !arrow ? (
            <g data-mark="tap">
              <ellipse cx={target.x} cy={target.y} rx={38} ry={(38 * width) / height} fill="rgb(229 72 77 / 25%)" stroke="#e5484d" strokeWidth={5} vectorEffect="non-scaling-stroke" />
              <ellipse cx={target.x} cy={target.y} rx={6} ry={(6 * width) / height} fill="#e5484d" />
            </g>
          ) : null}
          {arrow ? (
            <line data-mark="swipe" x1={arrow.from.x} y1={arrow.from.y} x2={arrow.to.x} y2={arrow.to.y} stroke="#e5484d" strokeWidth={5} vectorEffect="non-scaling-stroke" markerEnd="url(#head)" />
          ) : null}
        </svg>
      ) : null}
      {typed !== undefined ? (
        <figcaption className={styles.typed} data-mark="text">
          Types: <strong>{typed}</strong>
        </figcaption>
      ) : null}
    </figure>
  );
}
