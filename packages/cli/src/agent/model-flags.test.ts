// Per-role model timeout and retries from the headless agent's flags (and MODEL_TIMEOUT_MS / MODEL_RETRIES), through
// the runtime's own createModels, against the scripted OpenAI-compatible endpoint over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModels } from "@phoneloop/agent";
import { startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { UsageError } from "../args.ts";
import { readEnv } from "../env.ts";
import { parseAgentArgs } from "./options.ts";

const TOKEN = "plt_test-token-0123456789abcdef";
let slow: ScriptedModelServer;

beforeAll(async () => {
  // Every reply takes 5 s: a call with a shorter timeout ends in TIMEOUT, one with the default waits for it.
  slow = await startScriptedModelServer({ rules: [{ match: () => true, replies: [{ text: "late", delayMs: 5_000 }], repeatLast: true }] });
});
afterAll(async () => {
  await slow?.stop();
});

const parse = (flags: string[], env: Record<string, string> = {}) =>
  parseAgentArgs(["--goal", "x", "--device", "adb-server", "--base-url", slow.baseURL, ...flags], readEnv({ PHONELOOP_AGENT_TOKEN: TOKEN, OPENAI_API_KEY: "k", ...env }))!;

describe("per-role model timeout and retries", () => {
  it("flags set each role's timeout and retries; the environment sets every role's; a flag wins", () => {
    const a = parse(["--planner-timeout-ms", "5s", "--executor-retries", "0", "--summarizer-retries", "7"], { MODEL_TIMEOUT_MS: "90000", MODEL_RETRIES: "2" });
    expect(a.models.planner).toMatchObject({ timeoutMs: 5_000, retries: 2 });
    expect(a.models.executor).toMatchObject({ timeoutMs: 90_000, retries: 0 });
    expect(a.models.summarizer).toMatchObject({ timeoutMs: 90_000, retries: 7 });
    const plain = parse([]);
    expect(plain.models.executor).not.toHaveProperty("timeoutMs");
    expect(plain.models.executor).not.toHaveProperty("retries");
  });

  it("refuses a timeout or retry count out of bounds, naming the flag", () => {
    expect(() => parse(["--executor-timeout-ms", "0"])).toThrow(UsageError);
    expect(() => parse(["--executor-timeout-ms", "2h"])).toThrow(/--executor-timeout-ms must be from 1 to 600000/);
    expect(() => parse(["--planner-retries", "21"])).toThrow(/--planner-retries must be from 0 to 20/);
    expect(() => parse(["--planner-retries", "-1"])).toThrow(UsageError);
    expect(() => readEnv({ MODEL_RETRIES: "many" })).toThrow(/MODEL_RETRIES/);
  });

  it("the models the runtime gets carry them: the executor's call times out by its flag (the endpoint takes 5 s, the default allows 60), its retries are the flag's", async () => {
    const models = createModels(parse(["--executor-timeout-ms", "300", "--executor-retries", "1", "--planner-retries", "0"]).models);
    expect(models.executor.retries).toBe(1);
    expect(models.planner.retries).toBe(0);
    expect(models.summarizer.retries).toBeUndefined();
    const before = slow.requests.length;
    const r = await models.executor.complete({ role: "executor", messages: [{ role: "user", content: "hello" }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: "TIMEOUT", retryable: true });
    expect(slow.requests.length).toBe(before + 1);
  });
});
