// The lexicon compiled into word sets, once for the built-in lists and once per workspace's extra words.
import { CATEGORIES, LEXICON, type Category, type LanguageWords } from "./lexicon.ts";
import { splitList, WordSet, type Prepared } from "./match.ts";

type ListName = Exclude<keyof LanguageWords, "verbs" | "nouns" | "compounds">;

export interface CompiledWords {
  verbs: Map<Category, WordSet>;
  nouns: Map<Category, WordSet>;
  lists: Record<ListName, WordSet>;
}

const LIST_NAMES: ListName[] = [
  "composeSubmit", "navigation", "ownership", "dismiss", "negation", "confirming", "benignObjects",
  "searchField", "composeField", "otpField", "identityField", "cardField", "enterKeys", "securitySettings", "personalField",
];

function entries(pick: (w: LanguageWords) => string | undefined): { text: string; compound?: boolean }[] {
  return Object.values(LEXICON).flatMap((w) => splitList(pick(w)).map((text) => ({ text, ...(w.compounds ? { compound: true } : {}) })));
}

function compile(extra: Partial<Record<Category, string[]>>): CompiledWords {
  const verbs = new Map<Category, WordSet>();
  const nouns = new Map<Category, WordSet>();
  for (const c of CATEGORIES) {
    verbs.set(c, new WordSet([...entries((w) => w.verbs[c]), ...(extra[c] ?? []).map((text) => ({ text }))]));
    nouns.set(c, new WordSet(entries((w) => w.nouns?.[c])));
  }
  const lists = Object.fromEntries(LIST_NAMES.map((n) => [n, new WordSet(entries((w) => w[n]))])) as Record<ListName, WordSet>;
  return { verbs, nouns, lists };
}

const builtin = compile({});
const perRules = new WeakMap<object, CompiledWords>();

export function compiledWords(extra: Partial<Record<Category, string[]>>): CompiledWords {
  if (Object.keys(extra).length === 0) return builtin;
  let c = perRules.get(extra);
  if (!c) perRules.set(extra, (c = compile(extra)));
  return c;
}

export interface CategoryHit {
  category: Category;
  word: string;
}

/** The first category (in the order of CATEGORIES: money before account) whose verbs occur in the text. */
export function findVerb(w: CompiledWords, p: Prepared, only?: readonly Category[]): CategoryHit | null {
  for (const c of only ?? CATEGORIES) {
    const word = w.verbs.get(c)!.find(p);
    if (word) return { category: c, word };
  }
  return null;
}

export function findNoun(w: CompiledWords, p: Prepared): CategoryHit | null {
  for (const c of CATEGORIES) {
    const word = w.nouns.get(c)!.find(p);
    if (word) return { category: c, word };
  }
  return null;
}
