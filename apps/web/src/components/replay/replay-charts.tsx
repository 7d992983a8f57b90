"use client";
// Charts where a person would rather look than read: time per step (sense / model / act / writes stacked), tokens
// per step, and cost over the run. Plain SVG rather than a chart library: three fixed chart shapes over at most a
// few hundred points need no scales, axes or animation machinery, and the replay page stays small (its first
// screenshot and whole transfer are benchmarked). Each chart says its figures in text for screen readers, and a
// click on a bar selects that step.
import type { ReplayStep } from "./replay-data.ts";
import { formatMicroUsd, formatMs } from "./replay-data.ts";
import styles from "./replay.module.css";

const W = 600;
const H = 120;
const PHASES = [
  { key: "sense", label: "sense", color: "#7aa6e8" },
  { key: "model", label: "model", color: "#2459b3" },
  { key: "act", label: "act", color: "#e8a33d" },
  { key: "writes", label: "writes", color: "#9aa5b1" },
] as const;

function Bars({ steps, values, colors, current, onSelect, label }: {
  steps: ReplayStep[];
  values: number[][];
  colors: string[];
  current: number;
  onSelect(i: number): void;
  label: string;
}) {
  const totals = values.map((v) => v.reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const slot = W / Math.max(1, steps.length);
  const bar = Math.max(1, slot * 0.75);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" className={styles.chartSvg} role="img" aria-label={label}>
      {values.map((parts, i) => {
        let y = H;
        return (
          <g key={steps[i]!.id} onClick={() => onSelect(i)} className={styles.chartBar} data-current={i === current || undefined}>
            <rect x={i * slot} y={0} width={slot} height={H} fill={i === current ? "#e8f0fd" : "transparent"} />
            {parts.map((v, k) => {
              const h = (v / max) * (H - 4);
              y -= h;
              return <rect key={k} x={i * slot + (slot - bar) / 2} y={y} width={bar} height={h} fill={colors[k]} />;
            })}
          </g>
        );
      })}
    </svg>
  );
}

export function ReplayCharts({ steps, current, onSelect }: { steps: ReplayStep[]; current: number; onSelect(i: number): void }) {
  if (steps.length === 0) return null;
  const timed = steps.map((s) => PHASES.map((p) => s.timings?.[p.key] ?? 0));
  const totalMs = timed.map((t) => t.reduce((a, b) => a + b, 0));
  const tokens = steps.map((s) => [s.tokens]);
  let running = 0;
  const cumulative = steps.map((s) => (running += s.microUsd));
  const maxCost = Math.max(1, running);
  const slot = W / steps.length;
  const line = cumulative.map((c, i) => `${i === 0 ? "M" : "L"}${(i + 0.5) * slot},${H - 4 - (c / maxCost) * (H - 8)}`).join(" ");
  const slowest = totalMs.indexOf(Math.max(...totalMs));
  const mostTokens = steps.reduce((m, s, i) => (s.tokens > steps[m]!.tokens ? i : m), 0);
  return (
    <section className={styles.charts} aria-labelledby="charts-title" data-testid="replay-charts">
      <h2 id="charts-title">Per step</h2>
      <figure className={styles.chart}>
        <figcaption>
          Time per step{" "}
          <span className={styles.legend}>
            {PHASES.map((p) => (
              <span key={p.key}>
                <i style={{ background: p.color }} aria-hidden /> {p.label}
              </span>
            ))}
          </span>
        </figcaption>
        <Bars steps={steps} values={timed} colors={PHASES.map((p) => p.color)} current={current} onSelect={onSelect}
          label={`Time per step: ${steps.length} steps, ${formatMs(totalMs.reduce((a, b) => a + b, 0))} in all; the slowest is step ${steps[slowest]!.index + 1} (${formatMs(totalMs[slowest]!)}).`} />
      </figure>
      <figure className={styles.chart}>
        <figcaption>Tokens per step</figcaption>
        <Bars steps={steps} values={tokens} colors={["#6b4fbb"]} current={current} onSelect={onSelect}
          label={`Tokens per step: ${steps.reduce((a, s) => a + s.tokens, 0)} in all; the most is step ${steps[mostTokens]!.index + 1} (${steps[mostTokens]!.tokens}).`} />
      </figure>
      <figure className={styles.chart}>
        <figcaption>Cost of the executor steps over the run ({formatMicroUsd(running)})</figcaption>
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" className={styles.chartSvg} role="img" aria-label={`Cost of the executor steps over the run: ${formatMicroUsd(running)} after ${steps.length} steps.`}>
          <rect x={current * slot} y={0} width={slot} height={H} fill="#e8f0fd" />
          <path d={line} fill="none" stroke="#1f7a4d" strokeWidth={2} vectorEffect="non-scaling-stroke" />
        </svg>
      </figure>
    </section>
  );
}
