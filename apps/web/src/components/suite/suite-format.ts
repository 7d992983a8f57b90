// How suite figures read on the page: rates as percentages with their interval, money in USD, seconds.
import type { RateInterval } from "@phoneloop/state/domain";

export const percent = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** "100% (95% CI 44–100%)": the success rate and its Wilson interval. */
export function rateText(r: RateInterval): string {
  return `${percent(r.rate)} (95% CI ${percent(r.low)}–${percent(r.high)})`;
}

export const usd = (microUsd: number) => (microUsd === 0 ? "$0" : microUsd < 10_000 ? `$${(microUsd / 1e6).toFixed(4)}` : `$${(microUsd / 1e6).toFixed(2)}`);

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export const round1 = (x: number) => String(Math.round(x * 10) / 10);

/** Score classes: full marks pass, some marks partial, none fail. */
export function scoreClass(score: number): "pass" | "partial" | "fail" {
  return score >= 1 ? "pass" : score > 0 ? "partial" : "fail";
}

export function when(d: Date | string): string {
  return new Date(d).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";
}
