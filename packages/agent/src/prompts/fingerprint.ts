// The prompts' fingerprint: one short hash of every prompt the runtime sends (planner, executor, summarizer —
// their system texts, their templates and the JSON schemas they ask for), so a suite run can record which prompts
// its figures came from and two runs with different prompts are never compared as if equal. The templates are
// rendered with fixed canonical inputs: any change to a system text, a template's wording or a schema changes it.
import { createHash } from "node:crypto";
import { ACTION_JSON_SCHEMA } from "../actions/schema.ts";
import type { ChatMessage } from "../ports.ts";
import { executorMessages } from "./executor.ts";
import { DECISION_JSON_SCHEMA, HOST_JSON_SCHEMA, planMessages, PLAN_JSON_SCHEMA, reportMessages, REPORT_JSON_SCHEMA } from "./planner.ts";

/** sha256 of the given renders, first 16 hex characters (64 bits: enough to tell prompt versions apart). */
export function fingerprintOf(renders: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(renders)).digest("hex").slice(0, 16);
}

/** Messages without their image bytes (the canonical image is the same blank every time; its size stays). */
const textOf = (messages: ChatMessage[]) =>
  messages.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : { image: [p.width, p.height] })) }));

/** The fingerprint of the prompts this build of the runtime sends. */
export function promptFingerprint(): string {
  const goal = "GOAL";
  const executor = executorMessages({
    goal,
    todo: "TODO",
    inputs: { key: "value" },
    outputs: ["output"],
    history: "HISTORY",
    reminder: "REMINDER",
    feedback: "FEEDBACK",
    app: "APP",
    screen: { width: 1080, height: 2400 },
    elements: "ELEMENTS",
    image: { bytes: new Uint8Array(0), mime: "image/png", width: 1080, height: 2400 },
    skills: "SKILLS",
    shortcuts: "SHORTCUTS",
  });
  return fingerprintOf([
    textOf(planMessages(goal, ["BOUND"], { lessons: "LESSONS", shortcuts: "SHORTCUTS" })),
    textOf(reportMessages({ goal, executed: "EXECUTED", blocked: "BLOCKED", answers: "ANSWERS", end: "END" })),
    textOf(executor),
    [PLAN_JSON_SCHEMA, DECISION_JSON_SCHEMA, HOST_JSON_SCHEMA, REPORT_JSON_SCHEMA, ACTION_JSON_SCHEMA],
  ]);
}
