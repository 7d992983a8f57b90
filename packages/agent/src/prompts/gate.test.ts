// A model's ask_user question becomes a gate question the state core accepts, whatever the model wrote.
import { describe, expect, it } from "vitest";
import { askedQuestion } from "./gate.ts";

/** The core's rule for a gate question (packages/state, gate.open): 8 to 2000 characters once trimmed. */
const accepted = (question: string) => question.trim().length >= 8 && question.trim().length <= 2000;

describe("askedQuestion", () => {
  it("quotes the model's question as the agent's own words", () => {
    expect(askedQuestion("Which size do you want?")).toBe('The agent asks: "Which size do you want?"');
    expect(askedQuestion("  Size?\n\n(S or M)  ")).toBe('The agent asks: "Size? (S or M)"');
  });

  it.each([
    ["a short question", "Size?"],
    ["one character", "?"],
    ["an empty question", ""],
    ["only spaces", "   \n\t "],
    ["a very long question", "Which of these? ".repeat(400)],
    ["quotes and control characters", '"\\"\u0000\u0007'.repeat(500)],
  ])("%s still makes a question the core accepts", (_what, question) => {
    expect(accepted(question)).toBe(false);
    expect(accepted(askedQuestion(question))).toBe(true);
  });
});
