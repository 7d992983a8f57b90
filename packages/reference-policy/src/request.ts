// Reading an OpenAI-compatible chat completion request the way the agent runtime writes it: which kind of call it
// is (by the JSON schema's name the runtime asks for), the goal, the todo, the blackboard inputs, the history and
// the screen's element list (the fenced regions of the prompt, `FENCE_TAG` from the agent's public entry).
import { FENCE_TAG } from "@phoneloop/agent";

export type CallKind = "plan" | "decision" | "host" | "action" | "report" | "guard";

/** The JSON schema names the runtime sends with each kind of call (its structured-output request). */
const SCHEMA_KINDS: Record<string, CallKind> = {
  plan: "plan",
  supervisor_decision: "decision",
  host_answer: "host",
  phone_action: "action",
  run_report: "report",
  guard_verdict: "guard",
};

export interface ScreenElement {
  index: number;
  className: string;
  flags: string[];
  text: string;
  id: string;
  /** Bounds normalised to 0–1000: left, top, right, bottom. */
  box: [number, number, number, number];
}

export interface ReadRequest {
  kind: CallKind | null;
  /** The text of the last user message. */
  text: string;
  goal: string;
  /** The executor's todo, or the host todo's title. */
  todo: string;
  inputs: Record<string, string>;
  /** History lines (`#3 click element "7" → ok`). */
  history: string[];
  feedback: string;
  app: string;
  elements: ScreenElement[];
}

type Message = { role?: unknown; content?: unknown };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as { type?: unknown; text?: unknown }[])
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("\n");
}

const region = (text: string, source: string): string | null => {
  const re = new RegExp(`<${FENCE_TAG} source="${source}">\\n([\\s\\S]*?)\\n</${FENCE_TAG}>`);
  return re.exec(text)?.[1] ?? null;
};

const QUOTED = String.raw`"(?:[^"\\]|\\.)*"`;
const ELEMENT_LINE = new RegExp(String.raw`^\[(\d+)\] (${QUOTED})(?:\(([a-z,]+)\))? (${QUOTED})(?: id=(${QUOTED}))? @\[(\d+),(\d+),(\d+),(\d+)\]$`);

/** One line of the executor's element list; null when the line is not one. */
export function parseElementLine(line: string): ScreenElement | null {
  const m = ELEMENT_LINE.exec(line);
  if (!m) return null;
  const unquote = (s: string | undefined) => (s ? (JSON.parse(s) as string) : "");
  return {
    index: Number(m[1]),
    className: unquote(m[2]),
    flags: m[3] ? m[3].split(",") : [],
    text: unquote(m[4]),
    id: unquote(m[5]),
    box: [Number(m[6]), Number(m[7]), Number(m[8]), Number(m[9])],
  };
}

const line = (text: string, label: string): string => new RegExp(`^${label}: (.*)$`, "m").exec(text)?.[1]?.trim() ?? "";

export function readRequest(body: Record<string, unknown>): ReadRequest {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const text = textOf(lastUser?.content);
  const format = body.response_format as { json_schema?: { name?: unknown } } | undefined;
  const named = typeof format?.json_schema?.name === "string" ? SCHEMA_KINDS[format.json_schema.name] : undefined;
  const kind: CallKind | null =
    named ??
    (/Your action \(one JSON object\):/.test(text)
      ? "action"
      : /^HOST TODO/m.test(text)
        ? "host"
        : /^Write the plan:/m.test(text) || /Write the plan:/.test(text)
          ? "plan"
          : /^Decide:/m.test(text)
            ? "decision"
            : /"findings"/.test(text)
              ? "report"
              : null);
  const inputs: Record<string, string> = {};
  for (const l of (region(text, "blackboard") ?? "").split("\n")) {
    const m = /^([^=]+?) = (.*)$/.exec(l);
    if (m) inputs[m[1]!] = m[2]!;
  }
  const history = (region(text, "history") ?? "").split("\n").filter((l) => l.trim() !== "");
  const elements = (region(text, "screen") ?? "")
    .split("\n")
    .map(parseElementLine)
    .filter((e): e is ScreenElement => e !== null);
  const feedback = /FEEDBACK ON YOUR LAST REPLY:\n([\s\S]*?)\nSCREEN:/.exec(text)?.[1] ?? "";
  const appQuoted = /^SCREEN: app ("(?:[^"\\]|\\.)*")/m.exec(text)?.[1];
  return {
    kind,
    text,
    goal: line(text, "GOAL"),
    todo: line(text, "TODO") || line(text, "HOST TODO \\(no screen needed\\)"),
    inputs,
    history,
    feedback,
    app: appQuoted ? (JSON.parse(appQuoted) as string) : "",
    elements,
  };
}
