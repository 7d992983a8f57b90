// Operator input: zod-validated, and a failure names the field path so a caller can fix it.
import type { z } from "zod";
import { StateError } from "./errors.ts";

export function parseInput<S extends z.ZodType>(schema: S, raw: unknown, operator: string): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(input)", message: i.message }));
  const first = issues[0]!;
  throw new StateError(
    "INVALID_INPUT",
    `${operator}: ${first.path}: ${first.message}` + (issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""),
    { operator, issues },
  );
}
