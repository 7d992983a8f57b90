import { describe, expect, it } from "vitest";
import { describePending } from "./action-words.ts";

describe("a person's takeover steps in words", () => {
  it("a masked text reads as masked, never as what was typed", () => {
    expect(describePending({ type: "type", text: "••••••", masked: true })).toBe("Type •••••• (secret, masked)");
    expect(describePending({ type: "type", text: "ada@example.org" })).toBe('Type "ada@example.org"');
  });
  it("taps, swipes and the phone's buttons", () => {
    expect(describePending({ type: "tap", x: 500, y: 250 })).toBe("Tap at (500, 250)");
    expect(describePending({ type: "swipe", from: { x: 500, y: 800 }, to: { x: 500, y: 200 } })).toBe("Swipe");
    expect(describePending({ type: "back" })).toBe("Press Back");
    expect(describePending({ type: "home" })).toBe("Press Home");
  });
});
