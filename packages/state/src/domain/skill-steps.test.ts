// A stored skill body in words, as the Learning page shows it.
import { describe, expect, it } from "vitest";
import { skillStepsOf } from "./skill-steps.ts";

const screen = { app: "com.clock", activity: "com.clock.Edit", required: [] };
describe("skill steps in words", () => {
  it("a wheel step turns its wheel to a value; a row named by its start ends in …", () => {
    const view = skillStepsOf({
      format: 1,
      app: "com.clock",
      params: ["hour", "item"],
      example: { hour: "06", item: "Bob Miller" },
      pre: screen,
      steps: [
        { action: { type: "drag", from: { x: 1, y: 2 }, to: { x: 1, y: 1 } }, target: { resourceId: "com.clock:id/hour_picker", at: { x: 1, y: 1 } }, turnTo: "{hour}", before: screen },
        { action: { type: "click" }, target: { text: "{item}", textStarts: true, at: { x: 1, y: 1 } }, before: { ...screen, required: [{ text: "{item}", textStarts: true, at: { x: 1, y: 1 } }] } },
      ],
      post: screen,
    })!;
    expect(view.steps.map((s) => s.does)).toEqual(['turn #hour_picker to "{hour}"', 'tap "{item}…"']);
    expect(view.steps[1]!.expects.required).toEqual(['"{item}…"']);
    expect(view.parameters).toEqual(["hour", "item"]);
  });
});
