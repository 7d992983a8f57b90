// What a replay shows, as the API answers it (run.replay / run.steps, or share.open / share.steps), and the small
// readings every part of the replay shares: the parsed action, money and durations in words.
import type { RecordedAction, RouterOutputs } from "@phoneloop/api/contract";

export type ReplayHeader = RouterOutputs["run"]["replay"];
export type ReplayStepsPage = RouterOutputs["run"]["steps"];

/** Steps per page: the first page brings the first screenshot soon; the rest follow while the person looks. */
export const STEPS_PAGE = 20;
export type ReplayStep = RouterOutputs["run"]["steps"]["items"][number];
/** An evidence row of the replay (a step's anomaly, validation or gate decision, or a timeline entry), its data typed by its kind. */
export type ReplayNote = ReplayHeader["timeline"][number];

/** Everything one replay needs: its header, its steps, and where each screenshot is read from. */
export interface ReplaySource {
  header: ReplayHeader;
  steps: ReplayStep[];
  /** The URL of a screenshot: the API's blob URL (with the share token on a share page) or a file's object URL. */
  screenUrl(sha256: string): string;
  /** Steps still loading (more pages follow). */
  loading: boolean;
}

/** The step's action as the model's parsed action, or null when its reply did not parse (its description is kept instead). */
export function actionOf(step: ReplayStep): RecordedAction | null {
  return step.action !== null && typeof step.action === "object" ? step.action : null;
}

/** The person who took the step during a takeover (its typed actor), or null for the run's agent. */
export function personOf(step: ReplayStep): { name: string } | null {
  return step.actor.kind === "member" ? { name: step.actor.name } : null;
}

export function formatMicroUsd(micro: number): string {
  if (micro === 0) return "$0";
  const usd = micro / 1_000_000;
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export function formatWhen(at: Date | string): string {
  return new Date(at).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "medium" });
}

/** The replay's grades, with what each means (docs/concepts.md, Safety). */
export const GRADE_MEANING = {
  A: "as intended",
  B: "done, with extra questions",
  C: "done, with a side effect",
  D: "off course",
} as const;

/** Detectors whose finding sends the model a reminder with its next call (docs/concepts.md, Detectors). */
const REMINDING = new Set(["repetition", "cycle", "no_change", "oscillation"]);

export function remindsModel(note: ReplayNote): boolean {
  return note.kind === "anomaly" && "kind" in note.data && typeof note.data.kind === "string" && REMINDING.has(note.data.kind);
}

/** Dates come back as strings from an exported file's JSON; the replay reads them as dates again. */
export function reviveDates<T>(value: T): T {
  const DATE_KEYS = new Set(["at", "startedAt", "endedAt", "gradedAt"]);
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === "string" && key && DATE_KEYS.has(key) && !Number.isNaN(Date.parse(v))) return new Date(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value) as T;
}
