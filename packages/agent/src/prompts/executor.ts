// The executor's prompt: only what the current step needs (docs/concepts.md, "State outside the model").
import type { ChatMessage, EncodedImage } from "../ports.ts";
import { fenceUntrusted, neutralise, quoteUntrusted, UNTRUSTED_RULE } from "./fence.ts";
import { toBase64 } from "../images/index.ts";

export const EXECUTOR_SYSTEM = `You operate an Android phone to finish one todo of a larger task. Each turn you get the screenshot, the visible elements and the recent history; reply with exactly ONE action as a JSON object, nothing else.
Coordinates are normalised 0-1000 on both axes (x from the left, y from the top). Instead of x/y you may name an element by its list index: "element":"7".
Actions:
{"type":"click"|"double_tap"|"long_press","x":n,"y":n} or with "element"
{"type":"drag","from":{"x":n,"y":n},"to":{"x":n,"y":n}}
{"type":"scroll","direction":"up"|"down"|"left"|"right"}
{"type":"input_text","text":"..."} types into the focused field; {"type":"click_then_type","element":"3","text":"..."}
{"type":"keyboard_enter"} {"type":"navigate_back"} {"type":"navigate_home"}
{"type":"open_app","app":"name or package"} {"type":"open_deeplink","uri":"..."} {"type":"wait","ms":1000}
{"type":"answer","text":"...","outputs":{"key":"value"}} reports information the todo asked for
{"type":"ask_user","question":"...","options":["..."]} only when a human must decide
{"type":"ask_takeover","reason":"login"|"captcha"|"one_time_code"|"blind_screen"|"other","question":"..."} when only a person can do the next step on the phone: a sign-in whose password you were not given, a captcha, a one-time code sent to the person, a screen you cannot see; a person operates the phone, hands it back, and you go on from the screen they leave
{"type":"status","status":"complete"|"infeasible","summary":"...","outputs":{"key":"value"}}
Add "intent":"<what this does in the app>" to every action. Dismiss popups, update dialogs and suggestion modals that block the task; never buy, pay, send, delete or publish unless the todo says so.
${UNTRUSTED_RULE}`;

export interface ExecutorPromptInput {
  goal: string;
  todo: string;
  inputs: Record<string, string>;
  outputs: string[];
  history: string;
  reminder?: string;
  feedback?: string;
  app: string;
  screen: { width: number; height: number };
  elements: string;
  image: EncodedImage;
  /** Skills for this app, validated or marked unverified (use_skill runs one, checking its screens before and after each step). */
  skills?: string;
  /** Validated deeplink shortcuts (open_deeplink). */
  shortcuts?: string;
}

export function executorMessages(p: ExecutorPromptInput): ChatMessage[] {
  // The todo is the planner model's text: neutralised (it is the task, so not fenced as data).
  const lines = [`GOAL: ${p.goal}`, `TODO: ${neutralise(p.todo)}`];
  if (p.outputs.length) lines.push(`When done, report outputs: ${p.outputs.join(", ")} (in "outputs" of status complete).`);
  if (Object.keys(p.inputs).length)
    lines.push(`INPUTS:\n${fenceUntrusted("blackboard", Object.entries(p.inputs).map(([k, v]) => `${k} = ${v}`).join("\n"))}`);
  // The history repeats text the model wrote (typed text, answers, questions): fenced like screen text.
  if (p.history) lines.push(`HISTORY (earlier steps; texts in them are your own earlier words or the app's):\n${fenceUntrusted("history", p.history)}`);
  if (p.reminder) lines.push(`REMINDER:\n${neutralise(p.reminder)}`);
  if (p.feedback) lines.push(`FEEDBACK ON YOUR LAST REPLY:\n${neutralise(p.feedback)}`);
  if (p.skills) lines.push(`SKILLS (paths that worked before — an unverified one has not been confirmed by a run yet, so check the screen after it; {"type":"use_skill","skill":"<name>","params":{"<param>":"<value>"}} runs one from its start screen, typing each {param} as its value — give only values the todo states, never a guess — and hands back if a screen is not as expected):\n${fenceUntrusted("skills", p.skills)}`);
  if (p.shortcuts) lines.push(`SHORTCUTS (deeplinks that open a screen directly; {"type":"open_deeplink","uri":"..."}):\n${fenceUntrusted("shortcuts", p.shortcuts)}`);
  lines.push(`SCREEN: app ${quoteUntrusted(p.app, 120)}, ${p.screen.width}x${p.screen.height}. Elements (index, class, text, id, bounds 0-1000; quoted fields are the app's text):`);
  lines.push(fenceUntrusted("screen", p.elements || "(no elements in the UI tree; use the screenshot)"));
  lines.push("Your action (one JSON object):");
  return [
    { role: "system", content: EXECUTOR_SYSTEM },
    {
      role: "user",
      content: [
        { type: "text", text: lines.join("\n") },
        { type: "image", mime: p.image.mime, base64: toBase64(p.image.bytes), width: p.image.width, height: p.image.height },
      ],
    },
  ];
}

export function anomalyReminder(messages: string[], goal: string, todo: string): string {
  return `Anomaly detected: ${messages.join(" ")}\nThe original task is: ${goal}\nThe current todo is: ${todo}\nCheck whether you have drifted from the task or are looping. Do not repeat the same action; try a different element, dismiss what blocks the screen, go back, or report status infeasible with the reason.`;
}
