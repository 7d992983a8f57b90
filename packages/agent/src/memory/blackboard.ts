// The blackboard (docs/concepts.md, "Host, executor, blackboard"): declared outputs of one todo feed the declared inputs of the next.
// A missing input or output fails closed with a clear reason instead of letting a model invent a value.
import type { Result } from "../ports.ts";

export type Blackboard = Record<string, string>;

export interface BlackboardError {
  code: "MISSING_INPUT" | "MISSING_OUTPUT";
  message: string;
  keys: string[];
}

export function readInputs(declared: string[], board: Blackboard, todoTitle: string): Result<Blackboard, BlackboardError> {
  const missing = declared.filter((k) => board[k] === undefined || board[k] === "");
  if (missing.length)
    return {
      ok: false,
      error: { code: "MISSING_INPUT", keys: missing, message: `Todo "${todoTitle}" needs ${missing.join(", ")}, which no earlier todo produced; it cannot start without inventing values.` },
    };
  return { ok: true, value: Object.fromEntries(declared.map((k) => [k, board[k]!])) };
}

/**
 * Declared outputs from what the executor reported (status/answer "outputs") and its answers (evidence).
 * A single declared output may be filled by the last answer's text; anything else missing fails closed.
 */
export function extractOutputs(declared: string[], reported: Blackboard, answers: string[], todoTitle: string): Result<Blackboard, BlackboardError> {
  const out: Blackboard = {};
  for (const k of declared) {
    const v = reported[k] ?? reported[k.toLowerCase()];
    if (v !== undefined && v.trim() !== "") out[k] = v;
  }
  const missing = declared.filter((k) => out[k] === undefined);
  if (missing.length === 1 && declared.length === 1 && answers.length) out[missing[0]!] = answers.at(-1)!;
  const still = declared.filter((k) => out[k] === undefined);
  if (still.length)
    return {
      ok: false,
      error: { code: "MISSING_OUTPUT", keys: still, message: `Todo "${todoTitle}" ended without reporting ${still.join(", ")}; the result is not accepted until they are found on the screen.` },
    };
  return { ok: true, value: out };
}
