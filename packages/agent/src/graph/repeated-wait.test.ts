// Repeated waits through the real runtime: a scripted model server behind the product's OpenAI client, the memory
// control plane and a fake phone whose page loads once the run has waited long enough (the runtime's clock moves only
// by its waits). While the screen stays as the model saw it, the executor waits again without asking the model; the
// step rows say so and spend no tokens, and the model is asked again once the screen changed, or after
// REPEATED_WAITS_MAX repeated waits when it never does.
import { describe, expect, it } from "vitest";
import { runAgent } from "./run.ts";
import { REPEATED_WAITS_MAX } from "./executor.ts";
import { FakePhone, box, type FakeScreen } from "../testing/fake-phone.ts";
import { FakeClock } from "../testing/fake-clock.ts";
import { act } from "../testing/scripted-model-server.ts";
import { useHarness } from "../testing/use-harness.ts";
import type { Foreground, Screenshot, StableOptions, StableResult, UiNode } from "@phoneloop/device";

const agent = { name: "test-worker", kind: "headless" as const, capabilities: ["phone"] };
const harness = useHarness();

const screens = (): Record<string, FakeScreen> => ({
  loading: { app: "com.example.notes", background: "#eeeeee", elements: [{ id: "spinner", text: "Loading…", bounds: box(300, 450, 700, 550) }] },
  ready: { app: "com.example.notes", background: "#fafafa", elements: [{ id: "open_button", text: "Open", bounds: box(100, 850, 900, 950), clickable: true, onTap: "opened" }] },
  opened: { app: "com.example.notes", background: "#0a0", elements: [{ id: "note", text: "Note opened", bounds: box(100, 400, 900, 600) }] },
});

/** The fake phone on the loading page until the clock reaches `readyAfterMs` past its start (never, by default). */
class LoadingPhone extends FakePhone {
  readonly #ready: number;
  constructor(
    private readonly clock: FakeClock,
    readyAfterMs = Infinity,
  ) {
    super(screens(), "loading");
    this.#ready = clock.now() + readyAfterMs;
  }
  #tick(): void {
    if (this.current === "loading" && this.clock.now() >= this.#ready) this.go("ready");
  }
  override async screenshot(): Promise<Screenshot> {
    this.#tick();
    return super.screenshot();
  }
  override async uiTree(): Promise<UiNode> {
    this.#tick();
    return super.uiTree();
  }
  override async foreground(): Promise<Foreground> {
    this.#tick();
    return super.foreground();
  }
  override async waitForStable(opts?: StableOptions): Promise<StableResult> {
    this.#tick();
    return super.waitForStable(opts);
  }
}

describe("repeated waits in the runtime", () => {
  it("the model's one wait is repeated while the page loads, then the model is asked on the loaded page: fewer model calls, the skipped steps recorded", async () => {
    const clock = new FakeClock();
    const phone = new LoadingPhone(clock, 2500);
    const h = await harness({ device: phone, clock, executor: [act({ type: "wait", ms: 1000, intent: "the page is loading" }), act({ type: "click", x: 500, y: 900 }), act({ type: "status", status: "complete", summary: "opened" })] });
    const out = await runAgent(h.ports, { goal: "Open the note", agent });
    expect(out.status).toBe("completed");
    expect(phone.current).toBe("opened");
    const steps = h.cp.stepsOf(out.runId);
    // Step 0 the model's wait (t = 1 s), steps 1 and 2 repeated waits (2 s, 3 s), step 3 the tap on the loaded page, step 4 done.
    expect(steps.map((s) => s.outcome.modelSkipped ?? null)).toEqual([null, "unchanged_after_wait", "unchanged_after_wait", null, null]);
    expect(steps.map((s) => (typeof s.action === "string" ? s.action : s.action.type))).toEqual(["wait", "wait", "wait", "click", "status"]);
    for (const s of steps.filter((x) => x.outcome.modelSkipped)) {
      expect(s.tokens).toBe(0);
      expect(s.outcome.replies).toEqual([]);
    }
    // Three model calls for five steps, none recorded at a repeated wait's step.
    expect(h.executorRequests()).toHaveLength(3);
    const calledAt = new Set(h.cp.evidenceList({ kind: "model_call", runId: out.runId }).map((e) => e.stepIndex));
    expect(calledAt.has(1) || calledAt.has(2)).toBe(false);
    expect(clock.sleeps.filter((ms) => ms === 1000)).toHaveLength(3);
    // The model, asked on the loaded page, reads in its history which waits it did not choose.
    expect(h.executorRequests()[1]!.lastUserText).toMatch(/wait 1000ms → waited again \(screen unchanged, model not asked\)/);
  });

  it(`a page that never loads: the model is asked again after ${REPEATED_WAITS_MAX} repeated waits, and may decide otherwise`, async () => {
    const clock = new FakeClock();
    const phone = new LoadingPhone(clock);
    const h = await harness({ device: phone, clock, executor: [act({ type: "wait" }), act({ type: "wait" }), act({ type: "answer", text: "The notes never loaded." })] });
    const out = await runAgent(h.ports, { goal: "Open the note", agent });
    expect(out.status).toBe("completed");
    const skipped = h.cp.stepsOf(out.runId).map((s) => s.outcome.modelSkipped !== undefined);
    const run = [false, ...Array<boolean>(REPEATED_WAITS_MAX).fill(true)];
    expect(skipped).toEqual([...run, ...run, false]);
    expect(h.executorRequests()).toHaveLength(3);
  });
});
