// The OpenAI adapter over the scripted server: the product's client path, errors as values, timeouts as results.
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIModel, isModelProxyUrl, MAX_OUTPUT_TOKENS } from "./openai.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../testing/scripted-model-server.ts";

let server: ScriptedModelServer | undefined;
afterEach(async () => server?.stop());
const req = { role: "executor" as const, messages: [{ role: "user" as const, content: "hi" }], jsonSchema: { name: "a", schema: { type: "object" } } };

describe("OpenAI-compatible model adapter", () => {
  it("returns text, usage and cost; sends JSON-schema output", async () => {
    server = await startScriptedModelServer({ script: [{ text: '{"type":"wait"}', promptTokens: 1000, completionTokens: 20 }] });
    const m = createOpenAIModel({ baseURL: server.baseURL, model: "vision-1", price: { inputPerMTok: 2.5, outputPerMTok: 10 } });
    const r = await m.complete(req);
    expect(r).toMatchObject({ ok: true, value: { text: '{"type":"wait"}', model: "vision-1", structured: true, usage: { inputTokens: 1000, outputTokens: 20, microUsd: 2700 } } });
    expect(server.requests[0]!.responseFormat).toMatchObject({ type: "json_schema" });
  });

  it("maps failures to typed, actionable errors", async () => {
    server = await startScriptedModelServer({ script: [{ status: 429 }, { status: 503 }, { status: 401 }, { status: 400, message: "bad" }] });
    const m = createOpenAIModel({ baseURL: server.baseURL, model: "m", structuredOutput: "none" });
    const codes = [];
    for (let i = 0; i < 4; i++) {
      const r = await m.complete(req);
      if (!r.ok) codes.push([r.error.code, r.error.retryable ?? false]);
    }
    expect(codes).toEqual([["RATE_LIMITED", true], ["SERVER_ERROR", true], ["AUTH", false], ["BAD_REQUEST", false]]);
  });

  it("a hung endpoint is a timeout result, not a hang", async () => {
    server = await startScriptedModelServer({ script: [{ hang: true }] });
    const m = createOpenAIModel({ baseURL: server.baseURL, model: "m", timeoutMs: 300 });
    const r = await m.complete(req);
    expect(r).toMatchObject({ ok: false, error: { code: "TIMEOUT", retryable: true } });
  });

  it("a cancelled call is reported as aborted", async () => {
    server = await startScriptedModelServer({ script: [{ hang: true }] });
    const m = createOpenAIModel({ baseURL: server.baseURL, model: "m" });
    const ac = new AbortController();
    const p = m.complete({ ...req, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect(await p).toMatchObject({ ok: false, error: { code: "ABORTED" } });
  });

  it("falls back to plain text once an endpoint rejects response_format, and remembers it", async () => {
    server = await startScriptedModelServer({ rejectResponseFormat: true, script: [{ text: "a" }, { text: "b" }] });
    const m = createOpenAIModel({ baseURL: server.baseURL, model: "m" });
    expect(await m.complete(req)).toMatchObject({ ok: true, value: { text: "a", structured: false } });
    expect(await m.complete(req)).toMatchObject({ ok: true, value: { text: "b" } });
    expect(server.requests.map((r) => Boolean(r.responseFormat))).toEqual([true, false, false]);
  });
  it("sends the endpoint's pinned sampling settings with every call, over the runtime's temperature; without them the runtime's", async () => {
    server = await startScriptedModelServer({ script: [{ text: "a" }, { text: "b" }] });
    const pinned = createOpenAIModel({ baseURL: server.baseURL, model: "m", sampling: { temperature: 0.7, topP: 0.9, seed: 42 } });
    await pinned.complete({ ...req, temperature: 0 });
    await createOpenAIModel({ baseURL: server.baseURL, model: "m" }).complete({ ...req, temperature: 0 });
    expect(server.requests[0]!.body).toMatchObject({ temperature: 0.7, top_p: 0.9, seed: 42 });
    expect(server.requests[1]!.body).toMatchObject({ temperature: 0 });
    expect(server.requests[1]!.body).not.toHaveProperty("top_p");
    expect(server.requests[1]!.body).not.toHaveProperty("seed");
  });

  it("knows whether its endpoint records usage: the API's model proxy does, a direct endpoint does not", () => {
    expect(isModelProxyUrl("http://127.0.0.1:4000/model/executor/v1")).toBe(true);
    expect(isModelProxyUrl("https://api.example.com/model/planner/v1/")).toBe(true);
    expect(isModelProxyUrl("https://api.openai.com/v1")).toBe(false);
    expect(createOpenAIModel({ baseURL: "http://127.0.0.1:4000/model/executor/v1", model: "m" }).recordsUsage).toBe(true);
    expect(createOpenAIModel({ baseURL: "https://api.openai.com/v1", model: "m" }).recordsUsage).toBe(false);
    expect(createOpenAIModel({ baseURL: "https://api.openai.com/v1", model: "m", recordsUsage: true }).recordsUsage).toBe(true);
  });
});

describe("output budget per role", () => {
  it("sets max_tokens by role unless the request or the endpoint names one", async () => {
    server = await startScriptedModelServer({ script: [{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }, { text: "e" }] });
    const m = createOpenAIModel({ baseURL: server.baseURL, model: "m", structuredOutput: "none" });
    for (const role of ["executor", "guard", "planner"] as const) await m.complete({ role, messages: [{ role: "user", content: "hi" }] });
    await m.complete({ role: "executor", messages: [{ role: "user", content: "hi" }], maxOutputTokens: 77 });
    const wide = createOpenAIModel({ baseURL: server.baseURL, model: "m", structuredOutput: "none", maxOutputTokens: 9000 });
    await wide.complete({ role: "executor", messages: [{ role: "user", content: "hi" }] });
    expect(server.requests.map((r) => r.body.max_tokens)).toEqual([MAX_OUTPUT_TOKENS.executor, MAX_OUTPUT_TOKENS.guard, MAX_OUTPUT_TOKENS.planner, 77, 9000]);
  });
});
