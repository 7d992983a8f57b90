import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModelProfile, profileOf, ProfileError } from "./profile.ts";
import { suiteSettingsOf } from "./settings.ts";
import { formatTable, formatTaskSuccess, summarize, summaryLine } from "./report.ts";
import { wilsonInterval } from "@phoneloop/state/domain";

const dir = mkdtempSync(join(tmpdir(), "suite-profile-"));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("model profiles", () => {
  it("a YAML profile names each role's endpoint; keys come from the environment or a file, never the profile", () => {
    file("key.txt", "sk-from-file\n");
    const p = file(
      "vision.yaml",
      `name: qwen-vl + small text
executor:
  baseURL: http://127.0.0.1:8000/v1
  model: qwen2.5-vl-7b
  apiKeyFile: key.txt
  price: { inputPerMTok: 0.2, outputPerMTok: 0.6 }
planner:
  baseURL: https://api.example.test/v1
  model: small-text
  apiKeyEnv: EXAMPLE_KEY
`,
    );
    const profile = loadModelProfile(p, { EXAMPLE_KEY: "sk-env" });
    expect(profile).toEqual({
      name: "qwen-vl + small text",
      models: {
        executor: { baseURL: "http://127.0.0.1:8000/v1", model: "qwen2.5-vl-7b", apiKey: "sk-from-file", price: { inputPerMTok: 0.2, outputPerMTok: 0.6 } },
        planner: { baseURL: "https://api.example.test/v1", model: "small-text", apiKey: "sk-env" },
      },
    });
    expect(() => loadModelProfile(p, {})).toThrow(/reads the planner key from \$EXAMPLE_KEY, which is not set/);
  });

  it("a JSON profile with a mistake names the field", () => {
    const p = file("bad.json", JSON.stringify({ name: "x", executor: { baseURL: "not a url", model: "m", apiKey: "sk-inline" } }));
    expect(() => loadModelProfile(p)).toThrow(ProfileError);
    expect(() => loadModelProfile(p)).toThrow(/at executor\.baseURL: .*\n.*at executor: Unrecognized key: "apiKey"/s);
    expect(() => loadModelProfile(file("broken.yml", "name: [unclosed"))).toThrow(/not valid YAML/);
  });
});

describe("the report", () => {
  it("prints a row per attempt and the last line of figures", () => {
    const a = (taskId: string, seed: number, score: number, steps: number, durationMs: number, costMicroUsd = 0, trial = 1) => ({ taskId, seed, trial, runId: "run_1", score, reason: "", steps, inputTokens: steps * 1000, outputTokens: 10, costMicroUsd, durationMs });
    const attempts = [a("settings_wifi_off", 1, 1, 4, 9000, 1500), a("settings_wifi_off", 2, 0.5, 6, 12000, 2500), a("notes_create", 1, 1, 8, 20000, 2000)];
    expect(summaryLine(summarize(attempts))).toBe("tasks=2 success_rate=0.667 mean_steps=6 mean_input_tokens=6000 mean_cost_usd=0.002 p50_task_s=12");
    expect(formatTable(attempts).split("\n")).toEqual([
      "task               seed  score  steps  tokens  cost_usd  seconds",
      "settings_wifi_off     1   1.00      4    4010    0.0015      9.0",
      "settings_wifi_off     2   0.50      6    6010    0.0025     12.0",
      "notes_create          1   1.00      8    8010    0.0020     20.0",
    ]);
    expect(summaryLine(summarize([]))).toBe("tasks=0 success_rate=0 mean_steps=0 mean_input_tokens=0 mean_cost_usd=0 p50_task_s=0");
  });

  it("with several trials: a trial column, and per task the success rate with its 95% Wilson interval", () => {
    const t = (trial: number, score: number) => ({ taskId: "notes_create", seed: 1, trial, runId: null, score, reason: "", steps: 3, inputTokens: 100, outputTokens: 10, costMicroUsd: 0, durationMs: 1000 });
    const attempts = [t(1, 1), t(2, 0), t(3, 1), t(4, 1), { ...t(1, 1), taskId: "settings_wifi_off" }];
    expect(formatTable(attempts).split("\n")[0]).toBe("task               seed  trial  score  steps  tokens  cost_usd  seconds");
    expect(formatTable(attempts).split("\n")[2]).toMatch(/^notes_create\s+1\s+2\s+0\.00/);
    const w = wilsonInterval(3, 4);
    expect(formatTaskSuccess(attempts).split("\n")).toEqual([
      "task               successes  rate  95% interval",
      `notes_create             3/4  0.75     ${w.low.toFixed(2)}–${w.high.toFixed(2)}`,
      "settings_wifi_off        1/1  1.00     0.21–1.00",
    ]);
  });
});

describe("the settings a suite run records", () => {
  it("are what the attempts send: model, endpoint without credentials, adapter, pinned sampling over the runtime's temperature, output budget", () => {
    const p = profileOf({
      name: "pinned",
      executor: { baseURL: "http://user:secret@127.0.0.1:8000/v1?key=abc", model: "vision-1", sampling: { temperature: 0.6, topP: 0.95, seed: 7 }, maxOutputTokens: 2048, imageDetail: "low" },
      planner: { baseURL: "http://127.0.0.1:8001/v1", model: "text-1" },
    }, "pinned.json");
    const s = suiteSettingsOf(p.models);
    expect(s.prompts).toMatch(/^[0-9a-f]{16}$/);
    expect(s.roles.executor).toEqual({ model: "vision-1", endpoint: "http://127.0.0.1:8000/v1", adapter: "phoneloop", adapterVersion: "1", temperature: 0.6, topP: 0.95, seed: 7, maxOutputTokens: 2048, structuredOutput: "auto", imageDetail: "low" });
    expect(s.roles.planner).toMatchObject({ model: "text-1", temperature: 0, topP: null, seed: null, maxOutputTokens: 4096 });
    expect(s.roles.summarizer).toEqual({ ...s.roles.planner, maxOutputTokens: 4096 });
    expect(JSON.stringify(s)).not.toMatch(/secret|abc/);
    expect(() => profileOf({ name: "x", executor: { baseURL: "http://127.0.0.1:1/v1", model: "m", sampling: { temperature: 9 } } }, "x.json")).toThrow(/at executor\.sampling\.temperature/);
  });

  it("record the executor's model adapter and the version it follows, and refuse one the runtime does not have", () => {
    const p = profileOf({ name: "tars", executor: { baseURL: "http://127.0.0.1:8000/v1", model: "ui-tars-1.5-7b", adapter: { id: "ui-tars", version: "1.5" } } }, "tars.json");
    expect(p.models.executor.adapter).toEqual({ id: "ui-tars", version: "1.5" });
    expect(suiteSettingsOf(p.models).roles.executor).toMatchObject({ adapter: "ui-tars", adapterVersion: "1.5" });
    // The planner runs on the executor's endpoint here, but only the executor's call goes through the adapter.
    expect(suiteSettingsOf(p.models).roles.planner).toMatchObject({ adapter: "phoneloop", adapterVersion: "1" });
    // Without a version: the newest the runtime lists for the id.
    expect(suiteSettingsOf(profileOf({ name: "q", executor: { baseURL: "http://127.0.0.1:8000/v1", model: "qwen", adapter: { id: "qwen-vl" } } }, "q.json").models).roles.executor).toMatchObject({ adapter: "qwen-vl", adapterVersion: "3" });
    expect(() => profileOf({ name: "x", executor: { baseURL: "http://127.0.0.1:1/v1", model: "m", adapter: { id: "ui-tars", version: "9" } } }, "x.json")).toThrow(/at executor\.adapter: the adapter ui-tars has no published version "9".*ui-tars 1\.5/);
    expect(() => profileOf({ name: "x", executor: { baseURL: "http://127.0.0.1:1/v1", model: "m", adapter: { id: "ui-venus" } } }, "x.json")).toThrow(/at executor\.adapter: there is no model adapter "ui-venus"/);
    // written as the agent's settings write it, "<id>@<version>"
    expect(profileOf({ name: "t", executor: { baseURL: "http://127.0.0.1:8000/v1", model: "m", adapter: "ui-tars@1.5" } }, "t.json").models.executor.adapter).toEqual({ id: "ui-tars", version: "1.5" });
  });

  it("a role may name a model preset: its model, adapter and default prices, each overridden by the role's own", () => {
    const p = profileOf({ name: "tars", executor: { baseURL: "http://127.0.0.1:8000/v1", preset: "ui-tars-1.5-7b" }, planner: { baseURL: "http://127.0.0.1:8001/v1", model: "text-1", preset: "phoneloop-json", price: { inputPerMTok: 0.4, outputPerMTok: 1.6 } } }, "tars.json");
    expect(p.models.executor).toEqual({ baseURL: "http://127.0.0.1:8000/v1", model: "ByteDance-Seed/UI-TARS-1.5-7B", adapter: { id: "ui-tars", version: "1.5" }, price: { inputPerMTok: 0, outputPerMTok: 0 } });
    expect(p.models.planner).toEqual({ baseURL: "http://127.0.0.1:8001/v1", model: "text-1", price: { inputPerMTok: 0.4, outputPerMTok: 1.6 } });
    expect(suiteSettingsOf(p.models).roles.executor).toMatchObject({ model: "ByteDance-Seed/UI-TARS-1.5-7B", adapter: "ui-tars", adapterVersion: "1.5" });
    expect(profileOf({ name: "q", executor: { baseURL: "http://127.0.0.1:8000/v1", preset: "qwen2.5-vl-72b", model: "served-name" } }, "q.json").models.executor).toMatchObject({ model: "served-name", adapter: { id: "qwen-vl", version: "2.5" } });
    expect(() => profileOf({ name: "x", executor: { baseURL: "http://127.0.0.1:1/v1", preset: "no-such" } }, "x.json")).toThrow(/at executor\.preset/);
    expect(() => profileOf({ name: "x", executor: { baseURL: "http://127.0.0.1:1/v1", model: "m" }, planner: { baseURL: "http://127.0.0.1:1/v1", preset: "gui-owl-7b" } }, "x.json")).toThrow(/at planner\.preset: the preset gui-owl-7b speaks gui-owl, which only the executor may/);
    expect(() => profileOf({ name: "x", executor: { baseURL: "http://127.0.0.1:1/v1", preset: "ui-tars-1.5-7b", adapter: { id: "qwen-vl" } } }, "x.json")).toThrow(/at executor\.adapter: .*not both/);
    expect(() => profileOf({ name: "x", executor: { baseURL: "http://127.0.0.1:1/v1", preset: "tool-calls" } }, "x.json")).toThrow(/at executor\.model: the preset tool-calls names no model/);
  });
});
