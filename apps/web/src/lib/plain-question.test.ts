import { describe, expect, it } from "vitest";
import { gateWaitOf, plainQuestion } from "./plain-question.ts";

describe("plainQuestion", () => {
  it("leads an approval with its first sentence and keeps the rule, policy and the model's words apart", () => {
    const q = plainQuestion(
      'Allow the agent to click on "Pay \\"20\\" EUR" in com.example.booking? This is a high-risk action (money). What the checkpoint saw: button text "Pay 20 EUR". The agent\'s model says it intends to (its own words, unverified): "pay the deposit". Todo: "Pay the deposit". (policy rules-7, rule payment.button)',
    );
    expect(q.question).toBe("Allow the agent to click on “Pay \"20\" EUR” in com.example.booking?");
    expect(q.detail).toContain("(policy rules-7, rule payment.button)");
    expect(q.detail).toContain("“pay the deposit”");
    expect(q.asked).toBe(false);
  });

  it("reads a ? inside a quoted label as part of the label", () => {
    expect(plainQuestion('Allow the agent to click on "Why? Pay" in shop? This is a confirm-tier action (money).').question).toBe("Allow the agent to click on “Why? Pay” in shop?");
  });

  it("gives the model's own question as the question, marked as the agent's", () => {
    expect(plainQuestion('The agent asks: "Which table, \\"inside\\" or outside?"')).toEqual({ question: 'Which table, "inside" or outside?', detail: null, asked: true });
  });

  it("keeps a question in no known shape whole", () => {
    expect(plainQuestion("Is the order number 4412 the right one?")).toEqual({ question: "Is the order number 4412 the right one?", detail: null, asked: false });
    expect(plainQuestion("Check the delivery address")).toEqual({ question: "Check the delivery address", detail: null, asked: false });
  });
});

describe("gateWaitOf", () => {
  it("names the gate a todo is blocked on, from the core's reason", () => {
    expect(gateWaitOf('waits for gate gate_1a2b: Allow the agent to click on "Pay" in shop?')).toBe("gate_1a2b");
    expect(gateWaitOf("The restaurant list needs a person to pick")).toBeNull();
    expect(gateWaitOf(null)).toBeNull();
  });
});
