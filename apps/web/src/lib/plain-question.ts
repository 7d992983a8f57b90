// A gate's question for a person first: the question itself in plain words, and the rest of what the agent wrote
// (the tier, what the checkpoint saw, the model's stated intent, the policy version and rule) apart, to fold below.
// The agent writes a question as its first sentence followed by that detail, with what the screen or the model said
// quoted as JSON strings (packages/agent's gate prompt); here the quotes become typographic ones, so a person reads
// “Pay 20 EUR” rather than "\"Pay 20 EUR\"". A question in no such shape (a person's, the planner's) stays whole.

export interface PlainQuestion {
  /** The question in plain words: its first sentence, quotes unescaped. */
  question: string;
  /** What follows that sentence, or null when there is nothing more. */
  detail: string | null;
  /** The question is the agent's model's own (ask_user), in its words. */
  asked: boolean;
}

/** "The agent asks: \"…\"": the model's own question (the gate prompt's askedQuestion). */
const ASKED = /^The agent asks: ("(?:[^"\\]|\\.)*")\s*$/s;

export function plainQuestion(raw: string): PlainQuestion {
  const text = raw.trim();
  const asked = ASKED.exec(text);
  if (asked) return { question: unquote(asked[1]!), detail: null, asked: true };
  const end = questionEnd(text);
  if (end === -1 || end === text.length) return { question: readable(text), detail: null, asked: false };
  const rest = text.slice(end).trim();
  return { question: readable(text.slice(0, end)), detail: rest ? readable(rest) : null, asked: false };
}

/** The end of the first sentence that asks (its "?" outside any quoted string), or -1. */
function questionEnd(text: string): number {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "?" && (i + 1 === text.length || /\s/.test(text[i + 1]!))) return i + 1;
  }
  return -1;
}

/** Every JSON-quoted string in the text as “…”, its escapes read. */
function readable(text: string): string {
  return text.replace(/"((?:[^"\\]|\\.)*)"/g, (whole) => `“${unquote(whole)}”`);
}

function unquote(quoted: string): string {
  try {
    const s: unknown = JSON.parse(quoted);
    if (typeof s === "string") return s;
  } catch {
    // not a JSON string: shown as written, without its outer quotes
  }
  return quoted.slice(1, -1);
}

/** The core blocks a todo whose gate opens with the reason "waits for gate <id>: <question>": the gate's id, else null. */
export function gateWaitOf(reason: string | null): string | null {
  return /^waits for gate (\S+): /.exec(reason ?? "")?.[1] ?? null;
}
