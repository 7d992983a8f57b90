// The runtime with each model adapter at its one seam (graph/runner/ask-model.ts): the executor model's `adapter`
// setting picks how the step is asked and how the reply is read. A scripted OpenAI-compatible server answers in the
// adapter's own format — a tap on the screen's Open button in the adapter's frame, then the family's "done" — and
// the run taps the button's device pixels and completes. A reply the adapter refuses is fed back to the model in
// the adapter's words; an adapter the runtime does not have fails the call, saying which exist.
import { describe, expect, it } from "vitest";
import { runAgent } from "../../graph/run.ts";
import { FakePhone, box, type FakeScreen } from "../../testing/fake-phone.ts";
import { useHarness } from "../../testing/use-harness.ts";
import { fromDevice, imageSizeFor } from "./frame.ts";
import { adapterFor, parseReply } from "./index.ts";

const agent = { name: "test-worker", kind: "headless" as const, capabilities: ["phone"] };
const harness = useHarness();
const DEVICE = { width: 1080, height: 2400 };
/** What the runtime sends (images/index.ts prepareScreenshot: long side 1024). */
const SENT = { width: 461, height: 1024 };

const screens = (): Record<string, FakeScreen> => ({
  home: {
    app: "com.example.notes",
    background: "#fafafa",
    elements: [
      { id: "title", text: "Notes", bounds: box(50, 100, 950, 200) },
      { id: "open_button", text: "Open", bounds: box(100, 850, 900, 950), clickable: true, onTap: "opened" },
    ],
  },
  opened: { app: "com.example.notes", background: "#0a0", elements: [{ id: "done", text: "Note opened", bounds: box(100, 400, 900, 600) }] },
});
const BUTTON = box(100, 850, 900, 950);
const CENTRE = { x: Math.round((BUTTON.left + BUTTON.right) / 2), y: Math.round((BUTTON.top + BUTTON.bottom) / 2) };

/** The button's centre in the adapter's frame, as the model would write it (integers). */
function inFrame(id: string, version: string): [number, number] {
  const d = adapterFor(id, version)!.descriptor;
  const p = fromDevice(CENTRE, d.frame, imageSizeFor(d.image, SENT), DEVICE);
  return [Math.round(p.x), Math.round(p.y)];
}

const toolCall = (args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name: "mobile_use", arguments: args })}\n</tool_call>`;
const CASES: Array<{ id: string; version: string; tap: (x: number, y: number) => string; done: string; system: RegExp }> = [
  { id: "phoneloop", version: "1", tap: (x, y) => JSON.stringify({ type: "click", x, y }), done: JSON.stringify({ type: "status", status: "complete", summary: "opened" }), system: /reply with exactly ONE action as a JSON object/ },
  { id: "ui-tars", version: "1.0", tap: (x, y) => `Thought: 点击打开按钮。\nAction: click(start_box='<|box_start|>(${x},${y})<|box_end|>')`, done: "Thought: done\nAction: finished(content='opened')", system: /## Action space/ },
  { id: "ui-tars", version: "1.5", tap: (x, y) => `Thought: Tap Open.\nAction: click(point='<point>${x} ${y}</point>')`, done: "Thought: done\nAction: finished(content='opened')", system: /## Action space/ },
  { id: "ui-tars", version: "2", tap: (x, y) => `Thought: Tap Open.\nAction: click(point='<point>${x} ${y}</point>')`, done: "Thought: done\nAction: finished(content='opened')", system: /## Action space/ },
  { id: "qwen-vl", version: "2.5", tap: (x, y) => toolCall({ action: "click", coordinate: [x, y] }), done: toolCall({ action: "terminate", status: "success" }), system: /The screen's resolution is 448x1036/ },
  { id: "qwen-vl", version: "3", tap: (x, y) => toolCall({ action: "click", coordinate: [x, y] }), done: toolCall({ action: "terminate", status: "success" }), system: /relative: 0–1000/ },
  { id: "autoglm-phone", version: "9B (2025-12)", tap: (x, y) => `<think>点击“Open”</think><answer>do(action="Tap", element=[${x},${y}])</answer>`, done: '<think>完成</think><answer>finish(message="opened")</answer>', system: /\(999,999\)/ },
  { id: "gui-owl", version: "GUI-Owl-7B/32B (2025-08)", tap: (x, y) => `Thought: The Open button opens the note.\nAction: tap Open\n${toolCall({ action: "click", coordinate: [x, y] })}`, done: `Thought: done\n${toolCall({ action: "terminate", status: "success" })}`, system: /The screen's resolution is 448x1036/ },
];

describe("the runtime asks and reads through the executor's model adapter", () => {
  for (const c of CASES) {
    it(`${c.id} ${c.version}: a tap in its frame lands on the button, its "done" completes the todo`, async () => {
      const phone = new FakePhone(screens(), "home");
      const [x, y] = inFrame(c.id, c.version);
      const h = await harness({ device: phone, executor: [{ text: c.tap(x, y) }, { text: c.done }], executorAdapter: { id: c.id, version: c.version } });
      const out = await runAgent(h.ports, { goal: "Open the note", agent });
      expect(out.status).toBe("completed");
      expect(phone.current).toBe("opened");
      const taps = phone.actions().filter((a) => a.op === "tap");
      expect(taps).toHaveLength(1);
      const at = taps[0]!.args[0] as { x: number; y: number };
      expect(Math.abs(at.x - CENTRE.x)).toBeLessThanOrEqual(2);
      expect(Math.abs(at.y - CENTRE.y)).toBeLessThanOrEqual(2);
      // Exactly the pixel the adapter read: the runtime does not move it onto the product's integer 0–1000 grid.
      const adapter = adapterFor(c.id, c.version)!;
      const read = parseReply(adapter, c.tap(x, y), { device: DEVICE, image: imageSizeFor(adapter.descriptor.image, SENT) });
      if (!read.ok) throw new Error(read.error.message);
      expect(at).toEqual(read.actions[0]!.point);
      const asked = h.executorRequests()[0]!;
      expect(asked.system).toMatch(c.system);
      expect(asked.imageCount).toBe(1);
      // Structured output is the product's own language's: other adapters ask in their own grammar.
      expect(asked.responseFormat === undefined).toBe(c.id !== "phoneloop");
    });
  }

  it("a reply the adapter refuses is fed back in its words and the model tries again", async () => {
    const phone = new FakePhone(screens(), "home");
    const [x, y] = inFrame("ui-tars", "1.5");
    const h = await harness({
      device: phone,
      executor: [{ text: "Thought: below\nAction: click(point='<point>448 5000</point>')" }, { text: `Thought: Tap Open.\nAction: click(point='<point>${x} ${y}</point>')` }, { text: "Thought: done\nAction: finished(content='opened')" }],
      executorAdapter: { id: "ui-tars", version: "1.5" },
    });
    const out = await runAgent(h.ports, { goal: "Open the note", agent });
    expect(out.status).toBe("completed");
    expect(phone.current).toBe("opened");
    expect(h.executorRequests()[1]!.lastUserText).toMatch(/COORDINATE_OUT_OF_RANGE.*outside the screen/);
  });

  it("an adapter the runtime does not have fails the executor's call and names the ones it has", async () => {
    const phone = new FakePhone(screens(), "home");
    const h = await harness({ device: phone, executor: [{ text: "{}" }], executorAdapter: { id: "ui-venus" } });
    const out = await runAgent(h.ports, { goal: "Open the note", agent });
    expect(out.status).not.toBe("completed");
    expect(h.executorRequests()).toHaveLength(0);
    expect(JSON.stringify(out)).toMatch(/ui-venus.*not one the runtime has.*ui-tars/);
  });
});

describe("tool-calls: the action schema as OpenAI-style tools", () => {
  it("offers the tools, reads the endpoint's tool calls and taps the button", async () => {
    const phone = new FakePhone(screens(), "home");
    const [x, y] = inFrame("tool-calls", "1");
    const h = await harness({
      device: phone,
      executor: [
        { text: "", toolCalls: [{ name: "click", arguments: JSON.stringify({ x, y, intent: "open the note" }) }] },
        { text: "", toolCalls: [{ name: "status", arguments: JSON.stringify({ status: "complete", summary: "opened" }) }] },
      ],
      executorAdapter: { id: "tool-calls" },
    });
    const out = await runAgent(h.ports, { goal: "Open the note", agent });
    expect(out.status).toBe("completed");
    expect(phone.current).toBe("opened");
    const at = phone.actions().filter((a) => a.op === "tap")[0]!.args[0] as { x: number; y: number };
    expect(Math.abs(at.x - CENTRE.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(at.y - CENTRE.y)).toBeLessThanOrEqual(2);
    const body = h.executorRequests()[0]!.body as { tools?: Array<{ function: { name: string } }>; tool_choice?: string };
    expect(body.tools?.map((t) => t.function.name)).toContain("click");
    expect(body.tool_choice).toBe("required");
  });
});
