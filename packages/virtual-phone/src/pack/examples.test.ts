// The example scenario file loads from disk and its task can be done through the UI.
import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { PhoneEngine } from "../engine.ts";
import { ManualClock, center, find, tapOn } from "../testing.ts";

const file = fileURLToPath(new URL("./examples/tip-calculator.json", import.meta.url));

describe("example scenario file", () => {
  it("loads by path and its task scores 1 when done", () => {
    const clock = new ManualClock();
    const phone = new PhoneEngine({ scenario: file, seed: 1, clock });
    expect(phone.scenario.name).toBe("tip-calculator");
    expect(phone.startTask("tips_save_20").goal).toBe("Save a 20% tip for a bill of 42.50.");
    expect(find(phone, "save").attrs.enabled).toBe("false");
    phone.tap(...center(find(phone, "bill")));
    phone.typeText("42.50");
    phone.key(4);
    tapOn(phone, "20%");
    tapOn(phone, "Save 20% tip");
    clock.advance(300);
    expect(phone.evaluate("tips_save_20")).toMatchObject({ score: 1 });
  });
});
