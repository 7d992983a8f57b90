// The planner/supervisor and summarizer prompts (text only) and the schemas of their replies.
import { z } from "zod";
import type { ChatMessage, Todo } from "../ports.ts";
import { fenceUntrusted, neutralise, UNTRUSTED_RULE } from "./fence.ts";
import { extractBalanced, extractFenced, normalisePunctuation, tryParseJson } from "../actions/repair.ts";

export const TodoDraftSchema = z.object({
  id: z.string().optional(),
  title: z.string().min(1),
  kind: z.enum(["executor", "host"]).default("executor"),
  app: z.string().optional(),
  inputs: z.array(z.string()).default([]),
  outputs: z.array(z.string()).default([]),
});
export type TodoDraftReply = z.infer<typeof TodoDraftSchema>;

export const PlanReplySchema = z.object({ plan: z.string().default(""), todos: z.array(TodoDraftSchema).min(1) });
export const DecisionReplySchema = z.object({
  decision: z.enum(["retry", "replan", "summarise", "complete"]),
  reason: z.string().default(""),
  todos: z.array(TodoDraftSchema).default([]),
});
export const HostReplySchema = z.object({ answer: z.string(), outputs: z.record(z.string(), z.string()).default({}) });
export const LessonSchema = z.object({ kind: z.enum(["failed", "worked"]), text: z.string().min(3).max(500) });
export const ReportReplySchema = z.object({ findings: z.array(z.string()).default([]), conclusion: z.string().min(1), lessons: z.array(LessonSchema).max(3).catch([]).default([]) });

const jsonSchemaOf = (s: z.ZodType) => z.toJSONSchema(s, { io: "input" }) as Record<string, unknown>;
export const PLAN_JSON_SCHEMA = jsonSchemaOf(PlanReplySchema);
export const DECISION_JSON_SCHEMA = jsonSchemaOf(DecisionReplySchema);
export const HOST_JSON_SCHEMA = jsonSchemaOf(HostReplySchema);
export const REPORT_JSON_SCHEMA = jsonSchemaOf(ReportReplySchema);

/** Tolerant JSON → schema; null when it cannot be read. */
export function parseReply<T>(text: string, schema: z.ZodType<T>): T | null {
  const norm = normalisePunctuation(text);
  const body = extractBalanced(extractFenced(norm) ?? norm);
  if (!body) return null;
  const j = tryParseJson(body);
  if (!j.ok) return null;
  const r = schema.safeParse(j.value);
  return r.success ? r.data : null;
}

const PLANNER_SYSTEM = `You are the supervisor of a phone agent. You plan; an executor with a live Android phone does one todo at a time.
Split the goal into the fewest todos. kind "executor": needs a live app on the phone (give "app"). kind "host": needs no screen (arithmetic, summarising what was collected, composing a message from earlier outputs) - it is answered without the phone; write arithmetic as an expression over input keys, e.g. "total = price * 2".
Todos that pass data declare "outputs" (keys they must produce) and "inputs" (keys from earlier todos). Never invent values.
${UNTRUSTED_RULE}
Reply with one JSON object only.`;

function todoLine(t: Todo): string {
  return `- ${t.id} [${t.state}] (${t.kind}${t.appHint ? `, ${neutralise(t.appHint)}` : ""}) ${neutralise(t.title)}${t.inputs.length ? ` inputs=${t.inputs.join(",")}` : ""}${t.outputs.length ? ` outputs=${t.outputs.join(",")}` : ""}`;
}

/** What earlier runs in the goal's apps left: lessons of similar goals and validated deeplink shortcuts (both fenced: model-written and phone-declared text). */
export interface PlanLearning {
  lessons?: string;
  shortcuts?: string;
}

export function planMessages(goal: string, bounds: string[] = [], learned: PlanLearning = {}): ChatMessage[] {
  const memory = [
    learned.lessons ? `LESSONS FROM EARLIER RUNS IN THIS APP (what failed, what worked):\n${fenceUntrusted("lessons", learned.lessons)}\n` : "",
    learned.shortcuts ? `VALIDATED SHORTCUTS (deeplinks the executor may open with open_deeplink):\n${fenceUntrusted("shortcuts", learned.shortcuts)}\n` : "",
  ].join("");
  return [
    { role: "system", content: PLANNER_SYSTEM },
    {
      role: "user",
      content: `GOAL: ${goal}\n${bounds.length ? `BOUNDS: ${bounds.join("; ")}\n` : ""}${memory}Write the plan: {"plan":"<short plan document>","todos":[{"id":"t1","title":"...","kind":"executor"|"host","app":"...","inputs":[],"outputs":[]}]}`,
    },
  ];
}

export function decisionMessages(input: { goal: string; plan: string; todos: Todo[]; todo: Todo; status: string; reason: string; summary: string; attempts: number; finalScreenApp?: string }): ChatMessage[] {
  return [
    { role: "system", content: PLANNER_SYSTEM },
    {
      role: "user",
      content: [
        `GOAL: ${input.goal}`,
        `PLAN: ${input.plan || "(none)"}`,
        `TODOS:\n${input.todos.map(todoLine).join("\n")}`,
        `The executor returned from ${input.todo.id} "${neutralise(input.todo.title)}" after attempt ${input.attempts}: ${input.status} (${neutralise(input.reason)}). Final app: ${input.finalScreenApp ?? "unknown"}.`,
        `Its summary:\n${fenceUntrusted("executor-summary", input.summary)}`,
        `Decide: {"decision":"retry"|"replan"|"summarise"|"complete","reason":"...","todos":[...replacement todos when replanning...]}`,
      ].join("\n"),
    },
  ];
}

export function hostMessages(goal: string, todo: Todo, inputs: Record<string, string>): ChatMessage[] {
  return [
    { role: "system", content: PLANNER_SYSTEM },
    {
      role: "user",
      content: `GOAL: ${goal}\nHOST TODO (no screen needed): ${todo.title}\nINPUTS:\n${fenceUntrusted("blackboard", Object.entries(inputs).map(([k, v]) => `${k} = ${v}`).join("\n") || "(none)")}\nAnswer it: {"answer":"...","outputs":{${todo.outputs.map((o) => `"${o}":"..."`).join(",")}}}`,
    },
  ];
}

export function reportMessages(input: { goal: string; executed: string; blocked: string; answers: string; end: string }): ChatMessage[] {
  return [
    { role: "system", content: `You write the final report of a phone agent's run from its records. Be factual and short. ${UNTRUSTED_RULE} Reply with one JSON object only.` },
    {
      role: "user",
      content: `GOAL: ${input.goal}\nRUN ENDED: ${input.end}\nEXECUTED:\n${fenceUntrusted("run-records", input.executed || "(nothing)")}\nBLOCKED:\n${fenceUntrusted("run-records", input.blocked || "(nothing)")}\nANSWERS AND OUTPUTS:\n${fenceUntrusted("run-records", input.answers || "(none)")}\nReply: {"findings":["..."],"conclusion":"...","lessons":[{"kind":"failed"|"worked","text":"..."}]} with at most 3 lessons for the next run of a similar goal in this app: what failed (detours, blockers) and what worked (the direct path).`,
    },
  ];
}
