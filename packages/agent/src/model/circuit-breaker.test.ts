// The circuit breaker over a real OpenAI-compatible endpoint (the scripted model server) on a fake clock: failures
// in a row open it (calls fail at once, the endpoint is not asked), the cooldown's end lets one trial through.
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../testing/fake-clock.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../testing/scripted-model-server.ts";
import { withCircuitBreaker } from "./circuit-breaker.ts";
import { createOpenAIModel } from "./openai.ts";

let server: ScriptedModelServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe("circuit breaker", () => {
  it("opens after 3 failures in a row, refuses without calling, and lets one trial through after the cooldown", async () => {
    server = await startScriptedModelServer({ script: [{ status: 500 }, { status: 503 }, { status: 500 }, { text: "back" }] });
    const clock = new FakeClock();
    const model = withCircuitBreaker(createOpenAIModel({ baseURL: server.baseURL, model: "m", clock }), { failures: 3, cooldownMs: 10_000, clock });
    const ask = () => model.complete({ role: "planner", messages: [{ role: "user", content: "hi" }] });
    for (let i = 0; i < 3; i++) expect((await ask()).ok).toBe(false);
    const refused = await ask();
    expect(refused).toMatchObject({ ok: false, error: { code: "CIRCUIT_OPEN", retryable: true } });
    expect(server.requests).toHaveLength(3);
    clock.advance(10_000);
    const trial = await ask();
    expect(trial.ok && trial.value.text).toBe("back");
    expect(server.requests).toHaveLength(4);
  });

  it("a non-retryable failure (4xx) does not count toward opening it", async () => {
    server = await startScriptedModelServer({ script: [{ status: 500 }, { status: 400, message: "bad" }, { status: 500 }, { text: "ok" }] });
    const clock = new FakeClock();
    const model = withCircuitBreaker(createOpenAIModel({ baseURL: server.baseURL, model: "m", clock, structuredOutput: "none" }), { failures: 2, cooldownMs: 10_000, clock });
    const ask = () => model.complete({ role: "planner", messages: [{ role: "user", content: "hi" }] });
    expect((await ask()).ok).toBe(false);
    expect((await ask()).ok).toBe(false);
    expect((await ask()).ok).toBe(false);
    expect((await ask()).ok).toBe(true);
  });
});
