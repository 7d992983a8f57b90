// parseInput walks an input once: an object the same schema already output (validatedBy, as the API's procedures
// validate) is taken as it is; anything else, and an output of another schema, is parsed and may be refused.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isStateError } from "./errors.ts";
import { parseInput, validatedBy } from "./input.ts";

const Step = z.object({ title: z.string().trim().min(1), tags: z.array(z.string()).default([]) });
const Other = z.object({ title: z.string(), tags: z.array(z.string()).default([]) });

describe("parseInput after validatedBy", () => {
  it("takes the same schema's output as it is, and parses a copy of it, or another schema's output, afresh", () => {
    const out = validatedBy(Step).parse({ title: "  Open the feed " });
    expect(out).toEqual({ title: "Open the feed", tags: [] });
    expect(parseInput(Step, out, "step.test")).toBe(out);
    const copy = { ...out };
    expect(parseInput(Step, copy, "step.test")).not.toBe(copy);
    const other = validatedBy(Other).parse({ title: " " });
    let refused: unknown;
    try {
      parseInput(Step, other, "step.test");
    } catch (e) {
      refused = e;
    }
    expect(isStateError(refused) && refused.code).toBe("INVALID_INPUT");
  });

  it("refuses what the schema refuses, with the same issues as without it", () => {
    const direct = Step.safeParse({ title: "" });
    const wrapped = validatedBy(Step).safeParse({ title: "" });
    expect(wrapped.success).toBe(false);
    expect(wrapped.error?.issues).toEqual(direct.error?.issues);
  });
});
