// The lexicon (the team's words) and Android's own control words (platform-words.ts) compiled into word sets, once
// for the built-in lists and once per workspace's extra words.
import { CATEGORIES, LEXICON, type Category, type LanguageWords } from "./lexicon.ts";
import { prepare, splitList, WordSet, type Prepared } from "./match.ts";
import { PLATFORM_WORDS, type PlatformWords } from "./platform-words.ts";

type ListName = Exclude<keyof LanguageWords, "verbs" | "nouns" | "compounds">;

export interface CompiledWords {
  verbs: Map<Category, WordSet>;
  nouns: Map<Category, WordSet>;
  lists: Record<ListName, WordSet>;
  /** Dismissals and keeping words of the languages that put the verb last (Turkish, Japanese, Korean, Hindi,
   * Bengali, Persian), and German and Dutch keeping words, found at the end of a label ("Sepete geri dön",
   * "カートに戻る", "プランを維持", "Lid blijven"). */
  dismissTail: WordSet;
}

const VERB_LAST = ["tr", "ja", "ko", "hi", "bn", "fa"];
/** German and Dutch put the infinitive last in a label ("Mitglied bleiben", "Lid blijven"): their keeping words
 * back out at the end too (their other dismissals stay whole labels: "Bestellung abbrechen" is no way out). */
const KEEP_LAST = ["de", "nl"];
const COMMIT: Category[] = ["money", "destructive", "communication", "credentials", "permission", "install"];

const LIST_NAMES: ListName[] = [
  "composeSubmit", "navigation", "ownership", "dismiss", "negation", "keep", "affirmative", "cancelling", "leaving", "held", "staging", "completed", "confirming", "benignObjects",
  "searchField", "composeField", "otpField", "identityField", "cardField", "enterKeys", "newlineKeys", "securitySettings", "personalField", "reveal", "copying", "secrets", "manner", "story", "audience",
];

type Entry = { text: string; compound?: boolean };

function entries(pick: (w: LanguageWords) => string | undefined, compounds = true): Entry[] {
  return Object.values(LEXICON).flatMap((w) => splitList(pick(w)).map((text) => ({ text, ...(compounds && w.compounds ? { compound: true } : {}) })));
}

/** Lists of whole short words that never end a compound ("mina" is no ending of "elimina"). */
const WHOLE_WORD_LISTS: ReadonlySet<ListName> = new Set(["ownership", "dismiss", "negation", "keep", "affirmative", "confirming", "enterKeys", "newlineKeys"]);

/** Android's own words for a role, every language. */
function platform(role: keyof PlatformWords): Entry[] {
  return Object.values(PLATFORM_WORDS).flatMap((w) => splitList(w[role]).map((text) => ({ text })));
}

const PLATFORM_VERBS: Partial<Record<Category, keyof PlatformWords>> = { permission: "permission", install: "install", destructive: "destructive", communication: "communication" };
const PLATFORM_LISTS: Partial<Record<ListName, keyof PlatformWords>> = { dismiss: "dismiss", confirming: "confirming", navigation: "navigation" };

function compile(extra: Partial<Record<Category, string[]>>): CompiledWords {
  const verbs = new Map<Category, WordSet>();
  const nouns = new Map<Category, WordSet>();
  for (const c of CATEGORIES) {
    const own = PLATFORM_VERBS[c];
    verbs.set(c, new WordSet([...entries((w) => w.verbs[c]), ...(own ? platform(own) : []), ...(extra[c] ?? []).map((text) => ({ text }))]));
    nouns.set(c, new WordSet(entries((w) => w.nouns?.[c])));
  }
  const lists = Object.fromEntries(
    LIST_NAMES.map((n) => {
      const own = PLATFORM_LISTS[n];
      return [n, new WordSet([...entries((w) => w[n], !WHOLE_WORD_LISTS.has(n)), ...(own ? platform(own) : [])])];
    }),
  ) as Record<ListName, WordSet>;
  // A dismissal that is also a committing verb ("बंद करें": close, and turn off) counts only as the whole label.
  const commits = (text: string) => COMMIT.some((c) => verbs.get(c)!.isWhole(prepare(text)));
  const dismissTail = new WordSet(
    [...VERB_LAST.flatMap((l) => [...splitList(LEXICON[l]?.dismiss), ...splitList(LEXICON[l]?.keep), ...splitList(PLATFORM_WORDS[l]?.dismiss)]), ...KEEP_LAST.flatMap((l) => splitList(LEXICON[l]?.keep))]
      .filter((text) => !commits(text))
      .map((text) => ({ text })),
  );
  return { verbs, nouns, lists, dismissTail };
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

/** The first category (in the order of CATEGORIES: money before account) whose verbs occur in the text; an
 * ending (cancelling or leaving a thing held, "Annuler le rendez-vous", "Отменить заказ?") is destructive, and
 * revealing a secret ("Показать номер и CVC") is credentials. */
export function findVerb(w: CompiledWords, p: Prepared, only?: readonly Category[]): CategoryHit | null {
  for (const c of only ?? CATEGORIES) {
    const word = w.verbs.get(c)!.find(p) ?? (c === "destructive" ? findEnding(w, p) : c === "credentials" ? findReveal(w, p) : null);
    if (word) return { category: c, word };
  }
  return null;
}

/** An ending: a cancelling or leaving verb and a thing held, anywhere in the same text ("Exit group", "राइड रद्द
 * करें?", "Siparişi iptal et"), as "cancel … order". */
export function findEnding(w: CompiledWords, p: Prepared): string | null {
  const verb = w.lists.cancelling.find(p) ?? w.lists.leaving.find(p);
  if (!verb) return null;
  const thing = w.lists.held.find(p);
  return thing ? `${verb} … ${thing}` : null;
}

/** Revealing a secret: a reveal verb and a secret anywhere in the same text ("Показать номер и CVC", "Şifreyi
 * göster"), as "show … cvc"; never under a negation ("Never show your PIN to anyone"). */
export function findReveal(w: CompiledWords, p: Prepared): string | null {
  const verb = w.lists.reveal.find(p);
  if (!verb) return null;
  const secret = w.lists.secrets.find(p);
  return secret && !w.lists.negation.find(p) ? `${verb} … ${secret}` : null;
}

export function findNoun(w: CompiledWords, p: Prepared): CategoryHit | null {
  for (const c of CATEGORIES) {
    const word = w.nouns.get(c)!.find(p);
    if (word) return { category: c, word };
  }
  return null;
}
