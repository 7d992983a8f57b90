// What a gate's review shows, read from what the run recorded: the screenshot the gate points at (its observation
// evidence: blob, screen size, the listed elements in 0–1000 coordinates) and the pending action with the policy
// decision that opened the gate (the run's checkpoint keeps them "for replay" while the gate waits).
import { z } from "zod";

const Norm = z.number().min(0).max(1000);
const Point = z.object({ x: Norm, y: Norm });

/** The action as the executor parsed it; only the fields the overlay and the labels read. */
export const PendingAction = z
  .object({
    type: z.string(),
    x: Norm.optional(),
    y: Norm.optional(),
    element: z.string().optional(),
    from: Point.optional(),
    to: Point.optional(),
    direction: z.enum(["up", "down", "left", "right"]).optional(),
    text: z.string().optional(),
    app: z.string().optional(),
    uri: z.string().optional(),
    question: z.string().optional(),
    intent: z.string().optional(),
    thought: z.string().optional(),
  })
  .passthrough();
export type PendingAction = z.infer<typeof PendingAction>;

const PendingGate = z.object({
  gateId: z.string(),
  stepIndex: z.number(),
  action: PendingAction,
  kind: z.string(),
  tier: z.enum(["confirm", "high_risk", "question"]),
  policy: z.object({ ruleId: z.string(), evidence: z.array(z.string()), policyVersion: z.string() }).optional(),
});
export type PendingGate = z.infer<typeof PendingGate>;

const Checkpoint = z.object({ executor: z.object({ pendingGate: PendingGate.optional() }).passthrough().optional() }).passthrough();

const Observation = z.object({
  screen: z.object({ width: z.number(), height: z.number() }),
  elements: z.array(z.object({ i: z.number(), text: z.string().nullish(), id: z.string().nullish(), box: z.tuple([Norm, Norm, Norm, Norm]) })).default([]),
});
export type ObservationData = z.infer<typeof Observation>;

/** The pending action of this gate from a run's checkpoint, or null (a gate a person or the planner opened). */
export function pendingGateOf(checkpoint: unknown, gateId: string): PendingGate | null {
  const parsed = Checkpoint.safeParse(checkpoint);
  const pending = parsed.success ? parsed.data.executor?.pendingGate : undefined;
  return pending && pending.gateId === gateId ? pending : null;
}

export function observationOf(data: unknown): ObservationData | null {
  const parsed = Observation.safeParse(data);
  return parsed.success ? parsed.data : null;
}

/** Where the action lands, in 0–1000 screen coordinates: its point, else the centre of the element it names. */
export function targetOf(action: PendingAction, elements: ObservationData["elements"]): { x: number; y: number } | null {
  if (action.x !== undefined && action.y !== undefined) return { x: action.x, y: action.y };
  if (!action.element) return null;
  const ref = action.element.trim();
  const lower = ref.toLowerCase();
  const el =
    (/^\d+$/.test(ref) ? elements.find((e) => e.i === Number(ref)) : undefined) ??
    elements.find((e) => e.id && (e.id === ref || e.id.endsWith(`/${ref}`))) ??
    elements.find((e) => (e.text ?? "").toLowerCase() === lower);
  if (!el) return null;
  return { x: (el.box[0] + el.box[2]) / 2, y: (el.box[1] + el.box[3]) / 2 };
}

/** The action in a person's words, e.g. `Tap "Pay 20 EUR"`, `Type "4242…"`. */
export function describePending(action: PendingAction, elements: ObservationData["elements"] = []): string {
  // An element named by its index reads as its text when the screen listed it.
  const named = action.element && /^\d+$/.test(action.element.trim()) ? elements.find((e) => e.i === Number(action.element))?.text : undefined;
  const on = action.element ? ` "${named || action.element}"` : action.x !== undefined ? ` at (${action.x}, ${action.y})` : "";
  switch (action.type) {
    case "click":
      return `Tap${on}`;
    case "double_tap":
      return `Double-tap${on}`;
    case "long_press":
      return `Long-press${on}`;
    case "drag":
      return "Swipe";
    case "scroll":
      return `Scroll ${action.direction ?? ""}${on}`.trim();
    case "input_text":
      return `Type "${action.text ?? ""}"`;
    case "click_then_type":
      return `Tap${on}, then type "${action.text ?? ""}"`;
    case "open_app":
      return `Open the app ${action.app ?? ""}`;
    case "open_deeplink":
      return `Open the link ${action.uri ?? ""}`;
    case "ask_user":
      return "Ask you a question";
    default:
      return action.type.replace(/_/g, " ");
  }
}
