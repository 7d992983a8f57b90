// Experience memory: the lessons the planner receives are those of the goal's app(s) whose goal is similar to this
// one (word overlap), newest first among equals — never another app's, and at most a handful per app (the core's
// background merge has already folded an app's duplicates and resolved its contradictions).
import { MAX_LESSONS_PER_APP_IN_PROMPT } from "@phoneloop/state/domain";
import type { LessonRecord } from "../ports.ts";

const STOP = new Set(["a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "from", "at", "by", "it", "its", "is", "be", "then", "that", "this", "my", "me", "your", "as", "into"]);
// Words as Intl.Segmenter finds them: a language written without spaces (Chinese, Japanese) has words too.
const WORDS = new Intl.Segmenter("und", { granularity: "word" });
const contentWords = (s: string) => new Set([...WORDS.segment(s.toLocaleLowerCase())].filter((w) => w.isWordLike && !STOP.has(w.segment)).map((w) => w.segment));

/** Jaccard overlap of two goals' content words (0–1). */
export function goalSimilarity(a: string, b: string): number {
  const x = contentWords(a);
  const y = contentWords(b);
  if (!x.size || !y.size) return 0;
  let both = 0;
  for (const w of x) if (y.has(w)) both++;
  return both / (x.size + y.size - both);
}

export const MIN_GOAL_SIMILARITY = 0.2;

/** The lessons for this goal from those of its apps: similar goals only, most similar first, at most MAX_LESSONS_PER_APP_IN_PROMPT per app. */
export function lessonsFor(goal: string, apps: readonly string[], lessons: readonly LessonRecord[]): LessonRecord[] {
  const perApp = new Map<string, number>();
  return lessons
    .filter((l) => apps.includes(l.app))
    .map((l, i) => ({ l, i, sim: goalSimilarity(goal, l.goal) }))
    .filter((x) => x.sim >= MIN_GOAL_SIMILARITY)
    .sort((a, b) => b.sim - a.sim || a.i - b.i)
    .filter(({ l }) => {
      const n = perApp.get(l.app) ?? 0;
      perApp.set(l.app, n + 1);
      return n < MAX_LESSONS_PER_APP_IN_PROMPT;
    })
    .map((x) => x.l);
}
