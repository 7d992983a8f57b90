// The phoneloop adapter is today's language behind the port, unchanged: the same messages as the executor's prompt
// and, over the parser's own corpus of 130 replies, the same action or the same rejection code — plus the device
// pixels graph/observe.ts toPx gives for its points.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseAction } from "../../actions/parse.ts";
import { toPx } from "../../graph/observe.ts";
import { executorMessages } from "../../prompts/executor.ts";
import { phoneloopAdapter } from "./phoneloop.ts";
import { parseReply } from "./port.ts";

const corpus = JSON.parse(readFileSync(new URL("../../actions/fixtures/malformed-model-outputs.json", import.meta.url), "utf8")) as Array<{ input: string }>;
const screen = { device: { width: 1080, height: 2400 }, image: { width: 461, height: 1024 } };

describe("phoneloop adapter", () => {
  it("builds the executor's messages", () => {
    const image = { mime: "image/jpeg" as const, bytes: new Uint8Array([1, 2, 3]), width: 461, height: 1024 };
    const input = { goal: "Turn on dark theme", todo: "Open Display", app: "com.android.settings", screen: screen.device, image, elements: "[1] TextView \"Display\" @[0,332,1000,411]", history: "1. open_app", skills: "display: 2 steps", feedback: "INVALID_JSON" };
    expect(phoneloopAdapter.messages(input)).toEqual(executorMessages({ ...input, inputs: {}, outputs: [] }));
  });

  it("reads every reply of the parser's corpus as parseAction does", () => {
    for (const f of corpus) {
      const before = parseAction(f.input);
      const now = parseReply(phoneloopAdapter, f.input, screen);
      if (!before.ok) {
        expect(now.ok, f.input).toBe(false);
        if (!now.ok) expect(now.error.code).toBe(before.error.code);
        continue;
      }
      expect(now.ok, f.input).toBe(true);
      if (!now.ok) continue;
      expect(now.actions).toHaveLength(1);
      expect(now.actions[0]!.action).toEqual(before.action);
      const a = before.action as { x?: number; y?: number };
      if (a.x !== undefined && a.y !== undefined) expect(now.actions[0]!.point).toEqual(toPx({ x: a.x, y: a.y }, 1080, 2400));
    }
  });
});
