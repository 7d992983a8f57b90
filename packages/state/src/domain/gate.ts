// What a gate is: an approval (a person approves or denies an action the runtime proposes) or a question (a person
// answers, with one of its options or in words). The kind is stored with the gate when it opens; readers never
// guess it from the option strings.
export const GATE_KINDS = ["approval", "question"] as const;
export type GateKind = (typeof GATE_KINDS)[number];

/** The options an approval offers, in this order. */
export const APPROVAL_OPTIONS = ["approve", "deny"] as const;

/**
 * The kind of a gate whose opener did not say: an approval when every option is "approve" or "deny", else a
 * question (a gate without options is answered in words). Migration gate_in_core gave the gates opened before
 * kinds were stored their kind by this rule, in SQL.
 */
export function gateKindOf(options: readonly string[]): GateKind {
  const approval: readonly string[] = APPROVAL_OPTIONS;
  return options.length > 0 && options.every((o) => approval.includes(o)) ? "approval" : "question";
}
