// The product's own action language behind the port, unchanged: prompts/executor.ts builds the messages,
// actions/parse.ts reads the reply (one JSON action, points normalised 0–1000, or a UI-tree element). Follows
// PhoneLoop's action schema as of this commit (actions/schema.ts); version "1".
import { parseAction } from "../../actions/parse.ts";
import { ACTION_JSON_SCHEMA, type Action } from "../../actions/schema.ts";
import { EXECUTOR_SYSTEM, executorMessages } from "../../prompts/executor.ts";
import { mapPoint, type AdapterReply, type DeviceAction, type ModelAdapter, type ReplyScreen } from "./port.ts";
import type { CoordinateFrame } from "./frame.ts";

const FRAME: CoordinateFrame = { kind: "normalised", max: 1000 };

/** The device pixels of an action in the product's frame (an element target is resolved against the tree later). */
export function inDevicePixels(action: Action, screen: ReplyScreen, raw: string): { ok: true; value: DeviceAction } | { ok: false; reply: AdapterReply } {
  const out: DeviceAction = { action };
  const t = action as { x?: number; y?: number };
  if (t.x !== undefined && t.y !== undefined) {
    const m = mapPoint({ x: t.x, y: t.y }, FRAME, screen, raw);
    if (!m.ok) return { ok: false, reply: { ok: false, error: m.error } };
    out.point = m.device;
  }
  if (action.type === "drag") {
    const a = mapPoint(action.from, FRAME, screen, raw);
    const b = mapPoint(action.to, FRAME, screen, raw);
    if (!a.ok) return { ok: false, reply: { ok: false, error: a.error } };
    if (!b.ok) return { ok: false, reply: { ok: false, error: b.error } };
    out.from = a.device;
    out.to = b.device;
  }
  return { ok: true, value: out };
}

export const phoneloopAdapter: ModelAdapter = {
  descriptor: {
    id: "phoneloop",
    family: "any chat model with vision",
    version: "1",
    source: "PhoneLoop's action schema (packages/agent/src/actions/schema.ts)",
    image: { kind: "fit-long-side", longSide: 1024 },
    frame: FRAME,
    tokenFormula: "openai-high",
    replyStyle: "text",
  },
  systemPrompt: EXECUTOR_SYSTEM,
  jsonSchema: { name: "phone_action", schema: ACTION_JSON_SCHEMA },
  messages: (input) =>
    executorMessages({
      goal: input.goal,
      todo: input.todo,
      inputs: input.inputs ?? {},
      outputs: input.outputs ?? [],
      history: input.history,
      ...(input.reminder ? { reminder: input.reminder } : {}),
      ...(input.feedback ? { feedback: input.feedback } : {}),
      app: input.app,
      screen: input.screen,
      elements: input.elements,
      image: input.image,
      ...(input.skills ? { skills: input.skills } : {}),
      ...(input.shortcuts ? { shortcuts: input.shortcuts } : {}),
    }),
  read(reply, screen) {
    const parsed = parseAction(reply);
    if (!parsed.ok) return parsed;
    const mapped = inDevicePixels(parsed.action, screen, reply);
    if (!mapped.ok) return mapped.reply;
    const thought = parsed.action.thought;
    return { ok: true, actions: [mapped.value], ...(thought ? { thought } : {}), repairs: parsed.repairs };
  },
};
