// The runner's device reads: after an action the observation is what the device settled on (its frame and the
// UI tree it read for the loading check), so a step spends one tree read and no second screenshot.
import { describe, expect, it } from "vitest";
import { runAgent } from "./run.ts";
import { FakePhone, box, type FakeScreen } from "../testing/fake-phone.ts";
import { act } from "../testing/scripted-model-server.ts";
import { useHarness } from "../testing/use-harness.ts";
import { FakeClock } from "../testing/fake-clock.ts";
import type { AgentEvent } from "./state.ts";
import type { Direction, StableOptions, StableResult } from "@phoneloop/device";

const agent = { name: "test-worker", kind: "headless" as const, capabilities: ["phone"] };
const harness = useHarness();

const pages = (): Record<string, FakeScreen> => ({
  first: { app: "com.example.pages", background: "#fafafa", elements: [{ id: "next", text: "Next page", bounds: box(100, 800, 900, 900), clickable: true, onTap: "second" }] },
  second: { app: "com.example.pages", background: "#202020", elements: [{ id: "back", text: "First page", bounds: box(100, 800, 900, 900), clickable: true, onTap: "first" }] },
});

describe("runner", () => {
  it("observes after an action with the frame and tree the device settled on: no second screenshot, no second tree dump", async () => {
    const phone = new FakePhone(pages(), "first");
    const h = await harness({
      device: phone,
      executor: [act({ type: "click", element: "1" }), act({ type: "click", element: "1" }), act({ type: "click", element: "1" }), act({ type: "status", status: "complete", summary: "paged" })],
    });
    const out = await runAgent(h.ports, { goal: "Page through", agent });
    expect(out.status).toBe("completed");
    const count = (op: string) => phone.log.filter((c) => c.op === op).length;
    // Four observations: the first reads the phone itself, the three after an action reuse the settled frame and tree.
    expect({ screenshot: count("screenshot"), waitForStable: count("waitForStable"), uiTree: count("uiTree"), foreground: count("foreground") }).toEqual({ screenshot: 1, waitForStable: 3, uiTree: 4, foreground: 4 });
    // The last observation is the screen the third tap led to.
    expect(phone.log.filter((c) => c.op === "foreground").at(-1)!.screen).toBe("second");
  });

  it("prepares a screen seen again for the model once: a frame with the same bytes is not decoded again", async () => {
    const phone = new FakePhone(pages(), "first");
    const h = await harness({
      device: phone,
      executor: [act({ type: "click", element: "1" }), act({ type: "click", element: "1" }), act({ type: "click", element: "1" }), act({ type: "status", status: "complete", summary: "paged" })],
    });
    const images = h.ports.images;
    let decoded = 0;
    h.ports.images = { ...images, decode: (bytes) => (decoded++, images.decode(bytes)) };
    expect((await runAgent(h.ports, { goal: "Page through", agent })).status).toBe("completed");
    // Four observations of two screens (first, second, first, second): each screen is decoded once.
    expect(phone.log.filter((c) => c.op === "foreground").map((c) => c.screen)).toEqual(["first", "second", "first", "second"]);
    expect(decoded).toBe(2);
  });

  it("reports the phone's own time carrying out an action apart from the overhead: a swipe's gesture is the action, settling is overhead", async () => {
    const clock = new FakeClock();
    // A phone whose scroll gesture lasts 400 ms and whose screen settles 50 ms after an action (on the runtime's clock).
    class TimedPhone extends FakePhone {
      override async scroll(direction: Direction): Promise<void> {
        clock.advance(400);
        return super.scroll(direction);
      }
      override async waitForStable(opts?: StableOptions): Promise<StableResult> {
        clock.advance(50);
        return super.waitForStable(opts);
      }
    }
    const h = await harness({
      device: new TimedPhone(pages(), "first"),
      clock,
      executor: [act({ type: "scroll", direction: "down" }), act({ type: "wait", ms: 700 }), act({ type: "status", status: "complete", summary: "scrolled" })],
    });
    const steps: Extract<AgentEvent, { type: "step" }>[] = [];
    const out = await runAgent(h.ports, { goal: "Scroll once", agent, onEvent: (e) => void (e.type === "step" && e.promptTokens > 0 && steps.push(e)) });
    expect(out.status).toBe("completed");
    const [scroll, wait] = steps;
    expect(scroll).toMatchObject({ actionMs: 400, overheadMs: 50, phases: expect.objectContaining({ perform: 450 }) });
    expect(wait).toMatchObject({ actionMs: 700, overheadMs: 0, phases: expect.objectContaining({ perform: 700 }) });
  });
});
