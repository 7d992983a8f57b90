// What a share hides: the text typed into password fields, wherever it appears (the typed action, the goal's
// wording, the model's words, evidence), and those fields on the screenshots. A password field is one the UI tree
// marks as such (`password`), or, for runs recorded before observations carried that flag, an input whose id names
// a password.
import type { RecordedAction, ReplayScreen, ReplayStep } from "@phoneloop/state";

export const MASK = "••••••";

type Element = ReplayScreen["elements"][number];

const PASSWORD_ID = /pass(?:word|wd|code)?|pwd|\bpin\b|secret/i;

export function isPasswordField(e: Element): boolean {
  return e.password === true || (e.password === undefined && PASSWORD_ID.test(e.id ?? ""));
}

function inside(e: Element, p: { x: number; y: number }): boolean {
  const [l, t, r, b] = e.box;
  return p.x >= l && p.x <= r && p.y >= t && p.y <= b;
}

/** The step's parsed action (null: a reply that did not parse, kept as its description). */
const parsedAction = (step: Pick<ReplayStep, "action">): RecordedAction | null => (typeof step.action === "object" ? step.action : null);

/** The element an action targets on its step's screen: by its point, else by the element index it names. */
function targetOf(step: Pick<ReplayStep, "action" | "point" | "screen">): Element | undefined {
  const elements = step.screen?.elements ?? [];
  if (step.point) {
    const hits = elements.filter((e) => inside(e, step.point!));
    // The smallest box under the point is the field itself, not its container.
    return hits.sort((a, b) => (a.box[2] - a.box[0]) * (a.box[3] - a.box[1]) - (b.box[2] - b.box[0]) * (b.box[3] - b.box[1]))[0];
  }
  const named = parsedAction(step)?.element;
  const index = named !== undefined ? Number(String(named).replace(/\D/g, "")) : NaN;
  return Number.isFinite(index) ? elements.find((e) => e.i === index) : undefined;
}

/**
 * What was typed into password fields, in step order. `click_then_type` types into the field it taps; `input_text`
 * types into the field the previous step tapped.
 */
export function passwordTextsOf(steps: Pick<ReplayStep, "index" | "action" | "point" | "screen">[]): Set<string> {
  const out = new Set<string>();
  let focused: Element | undefined;
  for (const s of [...steps].sort((a, b) => a.index - b.index)) {
    const a = parsedAction(s) ?? { type: "" };
    const target = targetOf(s);
    if (a.type === "click_then_type" && typeof a.text === "string" && target && isPasswordField(target)) out.add(a.text);
    if (a.type === "input_text" && typeof a.text === "string") {
      const field = target ?? focused;
      if (field && isPasswordField(field)) out.add(a.text);
    }
    if (a.type === "click" || a.type === "click_then_type") focused = target;
  }
  for (const t of out) if (t.length === 0) out.delete(t);
  return out;
}

/** A copy of `value` with every occurrence of each secret replaced by the mask; dates and numbers stay as they are. */
export function redact<T>(value: T, secrets: Set<string>): T {
  if (secrets.size === 0) return value;
  // Longest first, so a secret containing another is masked whole.
  const list = [...secrets].sort((a, b) => b.length - a.length);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return list.reduce((s, secret) => s.split(secret).join(MASK), v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object" && !(v instanceof Date)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** The password fields' boxes (0–1000) on one screen. */
export function passwordBoxes(elements: Element[]): Element["box"][] {
  return elements.filter(isPasswordField).map((e) => e.box);
}
