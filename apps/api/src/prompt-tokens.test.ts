import { describe, expect, it } from "vitest";
import { countImageTokens, countRequestTokens, countTextTokens } from "@phoneloop/agent";
import { countPromptTokens } from "./prompt-tokens.ts";

describe("countPromptTokens", () => {
  it("counts a short chat as the agent counts it, and a long text slice by slice to within a token per slice", async () => {
    const short = [{ role: "system" as const, content: "You operate a phone." }, { role: "user" as const, content: "What next?" }];
    expect(await countPromptTokens({ messages: short })).toBe(countRequestTokens(short).total);
    const long = "The checkout screen shows a total of 12.50 EUR and a Pay button below the card field. ".repeat(4_000);
    const whole = countRequestTokens([{ role: "user", content: long }]).total;
    const sliced = await countPromptTokens({ messages: [{ role: "user", content: long }] });
    expect(Math.abs(sliced - whole)).toBeLessThanOrEqual(Math.ceil(long.length / 16_384));
    expect(sliced).toBeGreaterThan(countTextTokens(long) * 0.99);
  });

  it("counts an image whose size cannot be read as the largest the rule allows, and tools as their JSON", async () => {
    const remote = await countPromptTokens({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.test/screen.png" } }] }] });
    expect(remote - countRequestTokens([{ role: "user", content: "" }]).total).toBe(countImageTokens(768, 2048));
    const tools = [{ type: "function", function: { name: "tap", parameters: { type: "object", properties: { x: { type: "number" } } } } }];
    const withTools = await countPromptTokens({ messages: [{ role: "user", content: "hi" }], tools });
    expect(withTools - countRequestTokens([{ role: "user", content: "hi" }]).total).toBe(countTextTokens(JSON.stringify(tools)));
  });
});
