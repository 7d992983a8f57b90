// Phrases of a text in any script: where a value occurs as a whole word or phrase. Distillation finds a run's values
// in the goal's words with it, and a selector that names the start of an element's text matches with it.

/** Letters of scripts written without spaces between words: a phrase of them needs no word boundary. */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
export const wordChar = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}]/u.test(ch) && !NO_SPACES.test(ch);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where `value` occurs in `text` as a whole word or phrase, ignoring case. */
export function phrasesOf(text: string, value: string): { index: number; text: string }[] {
  if (!value.trim()) return [];
  const out: { index: number; text: string }[] = [];
  for (const m of text.matchAll(new RegExp(escapeRe(value), "giu"))) {
    const [first, lastCh] = [[...m[0]][0], [...m[0]].at(-1)];
    const [before, after] = [[...text.slice(0, m.index)].at(-1), [...text.slice(m.index + m[0].length)][0]];
    if ((wordChar(before) && wordChar(first)) || (wordChar(after) && wordChar(lastCh))) continue;
    out.push({ index: m.index, text: m[0] });
  }
  return out;
}

