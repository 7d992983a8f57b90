import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModelProfile, ProfileError } from "./profile.ts";
import { formatTable, summarize, summaryLine, attemptRow } from "./report.ts";

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
    const a = (taskId: string, seed: number, score: number, steps: number, durationMs: number, costMicroUsd = 0) => ({ taskId, seed, runId: "run_1", score, reason: "", steps, inputTokens: steps * 1000, outputTokens: 10, costMicroUsd, durationMs });
    const attempts = [a("settings_wifi_off", 1, 1, 4, 9000, 1500), a("settings_wifi_off", 2, 0.5, 6, 12000, 2500), a("notes_create", 1, 1, 8, 20000, 2000)];
    expect(summaryLine(summarize(attempts))).toBe("tasks=2 success_rate=0.667 mean_steps=6 mean_input_tokens=6000 mean_cost_usd=0.002 p50_task_s=12");
    expect(formatTable(attempts.map(attemptRow)).split("\n")).toEqual([
      "task               seed  score  steps  tokens  cost_usd  seconds",
      "settings_wifi_off     1   1.00      4    4010    0.0015      9.0",
      "settings_wifi_off     2   0.50      6    6010    0.0025     12.0",
      "notes_create          1   1.00      8    8010    0.0020     20.0",
    ]);
    expect(summaryLine(summarize([]))).toBe("tasks=0 success_rate=0 mean_steps=0 mean_input_tokens=0 mean_cost_usd=0 p50_task_s=0");
  });
});
