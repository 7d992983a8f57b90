// Operator input: zod-validated, and a failure names the field path so a caller can fix it.
import type { z } from "zod";
import { StateError } from "./errors.ts";

/** Objects that are an operator schema's own output (validatedBy), with the schema that made each. */
const validated = new WeakMap<object, z.ZodType>();

/**
 * The schema, remembering each object it outputs: parseInput with the same schema takes such an object as it is,
 * instead of walking it again. The API validates a procedure's input with the operator's own schema before the
 * operator runs, so a step's record (evidence, checkpoint JSON) was checked twice per request.
 */
export function validatedBy<S extends z.ZodType>(schema: S) {
  return schema.transform((out: z.output<S>) => {
    if (out !== null && typeof out === "object") validated.set(out, schema);
    return out;
  });
}

export function parseInput<S extends z.ZodType>(schema: S, raw: unknown, operator: string): z.output<S> {
  if (raw !== null && typeof raw === "object" && validated.get(raw) === schema) return raw as z.output<S>;
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
