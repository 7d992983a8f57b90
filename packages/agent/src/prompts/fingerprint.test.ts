import { describe, expect, it } from "vitest";
import { fingerprintOf, promptFingerprint } from "./fingerprint.ts";

describe("the prompts' fingerprint", () => {
  it("is 16 hex characters and the same for the same build", () => {
    expect(promptFingerprint()).toMatch(/^[0-9a-f]{16}$/);
    expect(promptFingerprint()).toBe(promptFingerprint());
  });

  it("changes with any word of any render, and with their order", () => {
    const base = fingerprintOf([{ role: "system", content: "Reply with one action." }, { schema: { type: "object" } }]);
    expect(fingerprintOf([{ role: "system", content: "Reply with one action!" }, { schema: { type: "object" } }])).not.toBe(base);
    expect(fingerprintOf([{ role: "system", content: "Reply with one action." }, { schema: { type: "array" } }])).not.toBe(base);
    expect(fingerprintOf([{ schema: { type: "object" } }, { role: "system", content: "Reply with one action." }])).not.toBe(base);
  });
});
