import { describe, expect, it } from "vitest";
import { answerArithmetic, evaluate, numberIn } from "./arithmetic.ts";
import { goalSimilarity, lessonsFor } from "./lessons.ts";
import { MAX_LESSONS_PER_APP_IN_PROMPT } from "@phoneloop/state/domain";
import type { LessonRecord } from "../ports.ts";

describe("host arithmetic", () => {
  it("computes an expression over the inputs with precedence and parentheses", () => {
    expect(evaluate("price * 2 + (tax - 1) / 2", { price: 59, tax: 5 })).toBe(120);
    expect(evaluate("-a + 3", { a: 1 })).toBe(2);
  });
  it("refuses anything but numbers, input keys and + - * / ( )", () => {
    expect(evaluate("price.constructor", { price: 1 })).toBeNull();
    expect(evaluate("unknown + 1", {})).toBeNull();
    expect(evaluate("1 / 0", {})).toBeNull();
    expect(evaluate("(1 + 2", {})).toBeNull();
    expect(evaluate("Math.max(1, 2)", {})).toBeNull();
  });
  it("answers a host todo stated as arithmetic over blackboard values, and leaves other todos to the model", () => {
    expect(answerArithmetic({ title: "total = price * 2", outputs: ["total"] }, { price: "$59.00" })).toEqual({ answer: "price * 2 = 118", outputs: { total: "118" }, expression: "price * 2" });
    expect(answerArithmetic({ title: "Compose the message to Alice", outputs: ["message"] }, { price: "$59.00" })).toBeNull();
    expect(answerArithmetic({ title: "total = price * 2", outputs: ["a", "b"] }, { price: "3" })).toBeNull();
    expect(numberIn("1,234.5 km")).toBe(1234.5);
    expect(numberIn("2 items for 3 dollars")).toBeNull();
  });
});

describe("lessons for a goal", () => {
  const lesson = (app: string, goal: string, text: string, i: number): LessonRecord => ({ id: `l${i}`, app, goal, kind: "failed", text, runId: `r${i}` });
  it("only the goal's apps, only similar goals, most similar first", () => {
    const all = [lesson("com.loop", "Search Loop for mobile AI agents", "a", 1), lesson("com.loop", "Log in to Loop", "b", 2), lesson("com.shop", "Search Loop for mobile AI agents", "c", 3), lesson("com.loop", "Search Loop for agents and like a post", "d", 4)];
    expect(lessonsFor("Search Loop for 'mobile AI agents' and collect views", ["com.loop"], all).map((l) => l.text)).toEqual(["a", "d"]);
    expect(goalSimilarity("Turn off Wi-Fi", "Turn off Wi-Fi.")).toBe(1);
  });
  it("at most a handful per app reach the planner, each app its own handful, the most similar first", () => {
    const many = Array.from({ length: 2 * MAX_LESSONS_PER_APP_IN_PROMPT + 2 }, (_, i) => lesson(i % 2 ? "com.shop" : "com.loop", "Search Loop and shop", `t${i}`, i));
    const got = lessonsFor("Search Loop and shop", ["com.loop", "com.shop"], many);
    expect(got.filter((l) => l.app === "com.loop")).toHaveLength(MAX_LESSONS_PER_APP_IN_PROMPT);
    expect(got.filter((l) => l.app === "com.shop")).toHaveLength(MAX_LESSONS_PER_APP_IN_PROMPT);
    const crowded = Array.from({ length: 9 }, (_, i) => lesson("com.loop", "Search Loop and shop", `c${i}`, i));
    expect(lessonsFor("Search Loop and shop", ["com.loop"], crowded).map((l) => l.text)).toEqual(crowded.slice(0, MAX_LESSONS_PER_APP_IN_PROMPT).map((l) => l.text));
  });
});
