// A recorded action in a person's words and where it lands on its screen: the gate's review and the replay draw
// and label the executor's action with these. The action and the screen's elements are the core's evidence shapes
// (RecordedAction, ListedElement), read through the API's contract.
import type { ListedElement, RecordedAction } from "@phoneloop/api/contract";

/** A screen as the overlay draws on it: its size and the elements the model was shown (boxes in 0–1000). */
export interface ScreenView {
  screen: { width: number; height: number };
  elements: ListedElement[];
}

/** Where the action lands, in 0–1000 screen coordinates: its point, else the centre of the element it names. */
export function targetOf(action: RecordedAction, elements: ListedElement[]): { x: number; y: number } | null {
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
export function describePending(action: RecordedAction, elements: ListedElement[] = []): string {
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
    // A person's actions during a takeover (the same words, their own types).
    case "tap":
      return `Tap${on}`;
    case "swipe":
      return "Swipe";
    case "type":
      return action.masked === true ? `Type ${action.text ?? ""} (secret, masked)` : `Type "${action.text ?? ""}"`;
    case "back":
      return "Press Back";
    case "home":
      return "Press Home";
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
