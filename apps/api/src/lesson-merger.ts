// The API's lesson merger: every intervalMs one pass of mergeLessons (the state core's: each app with a lesson added
// or edited since its last merge has its paraphrases folded and its contradictions resolved by the later evidence).
// Passes never overlap; several API processes may merge at once (each app is merged under its workspace's row lock).
import { mergeLessons, type Db, type MergeLessonsResult } from "@phoneloop/state";
import { startPeriodicPass } from "./periodic-pass.ts";

export interface LessonMergerOptions {
  intervalMs: number;
  onLog?: (line: string) => void;
}

export interface LessonMerger {
  /** One pass now (also what each interval runs). */
  tick(): Promise<MergeLessonsResult>;
  close(): Promise<void>;
}

export function startLessonMerger(db: Db, opts: LessonMergerOptions): LessonMerger {
  const log = opts.onLog ?? (() => {});
  const tick = async () => {
    const r = await mergeLessons(db, {}, { actor: "lesson-merge" });
    if (r.folded || r.contradicted) log(`lesson merge: ${r.apps} app(s), ${r.folded} duplicate(s) folded, ${r.contradicted} contradicted lesson(s) dropped`);
    return r;
  };
  return startPeriodicPass("lesson merge", opts.intervalMs, tick, log);
}
