// The scenario format as JSON Schema, generated from the zod schema (pack/scenario.schema.json is this, written out).
import { z } from "zod";
import { Scenario } from "./schema.ts";

export function scenarioJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(Scenario, { io: "input", unrepresentable: "any", cycles: "ref" }), title: "PhoneLoop virtual phone scenario" } as Record<string, unknown>;
}
