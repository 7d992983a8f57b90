// A skill's steps as people read them (the Learning page): each step's action in words, the element it acts on and
// the screen it expects (app, activity, required elements) and the screenshot of that screen in the run it came from
// (its blob's sha256), the screen the skill ends on, its description, parameters and their example values — read
// from the stored body (format 1, which the runtime writes and the core stores as JSON) once, here, so no reader
// decodes a body itself. A body this cannot read is answered as null (the page says the steps are not readable).
import { z } from "zod";

const Selector = z.object({ resourceId: z.string().optional(), text: z.string().optional(), textStarts: z.literal(true).optional().catch(undefined), at: z.object({ x: z.number(), y: z.number() }) });
const Screen = z.object({ app: z.string(), activity: z.string().optional(), required: z.array(Selector) });
const SHA256 = /^[0-9a-f]{64}$/;
// A field the page only shows (a step's screenshot, the description, the example values) that is not what it should
// be is left out, not a reason to show no steps.
const Step = z.object({ action: z.looseObject({ type: z.string() }), target: Selector.optional(), before: Screen, shot: z.string().regex(SHA256).optional().catch(undefined), turnTo: z.string().optional().catch(undefined) });
const Body = z.object({
  format: z.literal(1),
  app: z.string(),
  pre: Screen,
  steps: z.array(Step),
  post: Screen,
  params: z.array(z.string()).optional(),
  description: z.string().optional().catch(undefined),
  example: z.record(z.string(), z.unknown()).optional().catch(undefined),
});

export interface SkillScreenView {
  app: string;
  activity: string | null;
  /** The elements that must be on it, in words (`#search_box "Search"`, `"Buy now"`, `at (500, 120)`). */
  required: string[];
}

export interface SkillStepView {
  /** 1-based. */
  number: number;
  /** The action in words, parameters as `{name}` ("type {query}", "tap #search_go"). */
  does: string;
  /** The element it acts on, in words; null when it acts on no element. */
  target: string | null;
  /** The screen it expects before it acts. */
  expects: SkillScreenView;
  /** The sha256 of the screenshot of that screen in the run the skill came from (a blob its workspace owns); null when the run kept none. */
  shot: string | null;
}

export interface SkillStepsView {
  /** What the skill does in words, parameters as `{name}`; null when it has none (its goal says it). */
  description: string | null;
  parameters: string[];
  /** The values of the run it came from, by parameter name (a parameter may have none). */
  example: Record<string, string>;
  steps: SkillStepView[];
  /** The screen the skill must end on. */
  endsOn: SkillScreenView;
}

/** A selector in words, the way the runtime names it to the model. */
export function selectorWords(sel: z.infer<typeof Selector>): string {
  // A text that names only the start of the element's (a list row's title) ends in "…".
  const text = sel.text ? `"${sel.text}${sel.textStarts ? "…" : ""}"` : "";
  return sel.resourceId ? `#${sel.resourceId.replace(/^.*:id\//, "")}${text ? ` ${text}` : ""}` : text || `at (${Math.round(sel.at.x)}, ${Math.round(sel.at.y)})`;
}

const screenOf = (s: z.infer<typeof Screen>): SkillScreenView => ({ app: s.app, activity: s.activity ?? null, required: s.required.map(selectorWords) });

function actionWords(a: Record<string, unknown> & { type: string }, target: string | null): string {
  const on = target ? ` ${target}` : "";
  const str = (k: string) => (typeof a[k] === "string" ? (a[k] as string) : "");
  switch (a.type) {
    case "click":
      return `tap${on}`;
    case "double_tap":
      return `double-tap${on}`;
    case "long_press":
      return `long-press${on}`;
    case "drag":
      return "drag";
    case "scroll":
      return `scroll ${str("direction") || "down"}${on}`;
    case "input_text":
      return `type "${str("text")}"`;
    case "click_then_type":
      return `tap${on} and type "${str("text")}"`;
    case "keyboard_enter":
      return "press Enter";
    case "navigate_back":
      return "go back";
    case "navigate_home":
      return "go to the home screen";
    case "open_app":
      return `open ${str("app")}`;
    case "open_deeplink":
      return `open ${str("uri")}`;
    default:
      return a.type.replace(/_/g, " ");
  }
}

/** The steps of a stored skill body in words; null when the body is not one this reads. */
export function skillStepsOf(body: unknown): SkillStepsView | null {
  const b = Body.safeParse(body);
  if (!b.success) return null;
  const texts = b.data.steps.flatMap((s) => (typeof s.action.text === "string" ? [s.action.text] : []));
  const fromTexts = texts.flatMap((t) => [...t.matchAll(/\{([A-Za-z_][\w]*)\}/g)].map((m) => m[1]!));
  const parameters = [...new Set([...(b.data.params ?? []), ...fromTexts])];
  const example: Record<string, string> = {};
  for (const p of parameters) {
    const v = b.data.example?.[p];
    if (typeof v === "string") example[p] = v;
  }
  return {
    description: b.data.description?.trim() || null,
    parameters,
    example,
    steps: b.data.steps.map((s, i) => {
      const target = s.target ? selectorWords(s.target) : null;
      // A wheel step turns its wheel to a value, however many drags that takes.
      const does = s.turnTo !== undefined ? `turn${target ? ` ${target}` : ""} to "${s.turnTo}"` : actionWords(s.action, target);
      return { number: i + 1, does, target, expects: screenOf(s.before), shot: s.shot ?? null };
    }),
    endsOn: screenOf(b.data.post),
  };
}

/** What changed from one version's steps to the next: each step kept, changed (what it does or expects), added or removed. */
export type SkillStepChange =
  | { kind: "same"; number: number; does: string }
  | { kind: "changed"; number: number; before: SkillStepView; after: SkillStepView }
  | { kind: "added"; number: number; step: SkillStepView }
  | { kind: "removed"; number: number; step: SkillStepView };

const sameStep = (a: SkillStepView, b: SkillStepView) => a.does === b.does && JSON.stringify(a.expects) === JSON.stringify(b.expects);

/** A step-level diff of two versions (a longest common subsequence of their steps; a removed step followed by an added one is a change). */
export function skillStepDiff(before: readonly SkillStepView[], after: readonly SkillStepView[]): SkillStepChange[] {
  const n = before.length;
  const m = after.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = sameStep(before[i]!, after[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const raw: ({ kind: "same"; a: SkillStepView; b: SkillStepView } | { kind: "removed"; a: SkillStepView } | { kind: "added"; b: SkillStepView })[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && sameStep(before[i]!, after[j]!)) raw.push({ kind: "same", a: before[i++]!, b: after[j++]! });
    else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) raw.push({ kind: "added", b: after[j++]! });
    else raw.push({ kind: "removed", a: before[i++]! });
  }
  const out: SkillStepChange[] = [];
  for (let k = 0; k < raw.length; k++) {
    const r = raw[k]!;
    const next = raw[k + 1];
    if (r.kind === "removed" && next?.kind === "added") {
      out.push({ kind: "changed", number: next.b.number, before: r.a, after: next.b });
      k++;
    } else if (r.kind === "added" && next?.kind === "removed") {
      out.push({ kind: "changed", number: r.b.number, before: next.a, after: r.b });
      k++;
    } else if (r.kind === "same") out.push({ kind: "same", number: r.b.number, does: r.b.does });
    else if (r.kind === "added") out.push({ kind: "added", number: r.b.number, step: r.b });
    else out.push({ kind: "removed", number: r.a.number, step: r.a });
  }
  return out;
}
