// The background merge of an app's lessons: which lessons say the same thing (folded into one that names all their
// runs), and which say the opposite (the later evidence stands). One similarity function, lessonSimilarity, for every
// language a lesson is written in: words come from Intl.Segmenter (the runtime's ICU word breaker, which also splits
// Chinese and Japanese text into words), so no tokenizer library is needed; the stop and negation words are the few
// the comparison must ignore or must notice. Hand-written because no maintained npm library compares short
// multilingual sentences while telling "opens" and "does not open" apart.
import type { LessonKind } from "./learning.ts";

/** Two lessons at least this similar (0–1, lessonSimilarity) say the same thing, or its opposite. */
export const LESSON_SAME_SIMILARITY = 0.7;
/** At most this many lessons per app reach the planner's prompt. */
export const MAX_LESSONS_PER_APP_IN_PROMPT = 5;

// Words that carry no meaning of their own in a lesson (English, German, French, Spanish, Chinese particles).
const STOP = new Set([
  "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "from", "at", "by", "it", "its", "is", "are", "be", "was", "then", "that", "this", "as", "into", "first", "before", "after",
  "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "und", "oder", "zu", "im", "in", "auf", "mit", "von", "vom", "zum", "zur", "ist", "sich", "aus", "wird", "werden",
  "le", "la", "les", "l", "un", "une", "des", "du", "de", "d", "et", "ou", "à", "au", "aux", "en", "dans", "sur", "avec", "par", "est", "se", "s", "qu", "que",
  "el", "los", "las", "y", "o", "del", "al", "con", "por", "es", "se",
  "的", "了", "在", "是", "把", "被", "会", "就", "和", "与", "将", "之", "后", "先",
]);
// Words that turn a statement into its opposite.
const NEGATION = new Set(["not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "won't", "can't", "cannot", "nicht", "kein", "keine", "keinen", "nie", "niemals", "ne", "n", "pas", "jamais", "nunca"]);
const NEGATION_PREFIX = /^(不|没|無|无|未|别|別)/u;

const segmenter = new Intl.Segmenter(undefined, { granularity: "word" });

interface Words {
  words: string[];
  negated: boolean;
}

function wordsOf(text: string): Words {
  const out: string[] = [];
  let negations = 0;
  for (const s of segmenter.segment(text.normalize("NFKC").toLocaleLowerCase().replace(/[’']/g, "'"))) {
    if (!s.isWordLike) continue;
    const w = s.segment;
    if (NEGATION.has(w) || w.endsWith("n't")) negations++;
    else if (NEGATION_PREFIX.test(w)) {
      negations++;
      const rest = w.replace(NEGATION_PREFIX, "");
      if (rest && !STOP.has(rest)) out.push(rest);
    } else if (!STOP.has(w)) out.push(w);
  }
  return { words: out, negated: negations % 2 === 1 };
}

// Two words are the same when equal, or when one is the other with an ending (result/results, search/searching):
// a shared start of at least 4 letters covering all of the shorter word.
const sameWord = (a: string, b: string) => a === b || (Math.min(a.length, b.length) >= 4 && (a.startsWith(b) || b.startsWith(a)));

/**
 * How alike two lessons' statements are, 0–1: the Dice coefficient of their content words (each word matched at
 * most once), ignoring word order, case, punctuation, stop words and negation. Negation is judged separately
 * (sameStatement): "X opens Y" and "X does not open Y" are alike here and opposite there.
 */
export function lessonSimilarity(a: string, b: string): number {
  return diceOf(wordsOf(a).words, wordsOf(b).words);
}

function diceOf(x: readonly string[], y: readonly string[]): number {
  if (!x.length || !y.length) return x.length === y.length ? 1 : 0;
  const left = [...y];
  let both = 0;
  for (const w of x) {
    const i = left.findIndex((v) => sameWord(w, v));
    if (i >= 0) {
      both++;
      left.splice(i, 1);
    }
  }
  return (2 * both) / (x.length + y.length);
}

/** What a lesson asserts: true when it says something works (a worked lesson, or a failed one saying something does not). */
const polarityOf = (kind: LessonKind, negated: boolean) => (kind === "worked") !== negated;

export interface MergeableLesson {
  id: string;
  kind: LessonKind;
  text: string;
  runId: string;
  runIds: readonly string[];
  /** When its evidence was last given (a run stated it, or a person edited it). */
  at: Date;
}

export interface LessonMergePlan {
  /** The lessons kept, with the runs each now names (oldest first) and its newest run and evidence. */
  kept: { id: string; runIds: string[]; runId: string; at: Date; changed: boolean }[];
  /** Lessons saying what a kept one says: deleted, their runs joined to it. */
  folded: { id: string; into: string }[];
  /** Lessons a later one contradicts: deleted. */
  contradicted: { id: string; by: string }[];
}

/**
 * Merges one app's lessons, the oldest evidence first: a lesson alike (≥ LESSON_SAME_SIMILARITY) to one kept is
 * folded into it when it asserts the same (its runs join the kept one's), and replaces it when it asserts the
 * opposite (the later evidence stands; the older lesson is dropped with the runs that supported it).
 */
export function planLessonMerge(lessons: readonly MergeableLesson[]): LessonMergePlan {
  const sorted = [...lessons].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
  const kept: (LessonMergePlan["kept"][number] & { words: string[]; polarity: boolean })[] = [];
  const folded: LessonMergePlan["folded"] = [];
  const contradicted: LessonMergePlan["contradicted"] = [];
  for (const l of sorted) {
    const w = wordsOf(l.text);
    const polarity = polarityOf(l.kind, w.negated);
    let best = -1;
    let bestSim = 0;
    kept.forEach((k, i) => {
      const sim = diceOf(w.words, k.words);
      if (sim >= LESSON_SAME_SIMILARITY && sim > bestSim) [best, bestSim] = [i, sim];
    });
    const own = { id: l.id, runIds: [...new Set(l.runIds.length ? l.runIds : [l.runId])], runId: l.runId, at: l.at, changed: false, words: w.words, polarity };
    const k = kept[best];
    if (!k) kept.push(own);
    else if (k.polarity === polarity) {
      folded.push({ id: l.id, into: k.id });
      for (const r of own.runIds) if (!k.runIds.includes(r)) k.runIds.push(r);
      Object.assign(k, { runId: l.runId, at: l.at, changed: true });
    } else {
      contradicted.push({ id: k.id, by: l.id });
      kept[best] = own;
    }
  }
  return { kept: kept.map(({ words: _w, polarity: _p, ...k }) => k), folded, contradicted };
}
