"use client";
// Approve, deny or answer a gate, always with a rationale: the decision is recorded with who made it, and the run
// that waits on the gate continues by itself.
import { Check, MessageSquareReply, X } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { useOperators } from "../../lib/operators.ts";
import { useSession } from "../../lib/session.tsx";
import { ReasonDialog } from "../ui/reason-dialog.tsx";
import ui from "../ui/ui.module.css";

/** An answer of `null` is one the person writes (a gate without options). */
type Decision = { decision: "approve" } | { decision: "deny" } | { decision: "answer"; answer: string | null };

/**
 * `kind` is the gate's own, stored by the core when it opened: an approval is approved or denied; a question is
 * answered with one of its options, or in words when it has none. `answerRoles` are the roles the core recorded as
 * the ones that answer it.
 */
export function GateDecision({ gateId, question, options, kind, answerRoles, compact }: { gateId: string; question: string; options: string[]; kind: "approval" | "question"; answerRoles: string[]; compact?: boolean }) {
  const session = useSession();
  const ops = useOperators();
  const [pending, setPending] = useState<Decision | null>(null);
  // The gate's own roles decide (an escalated gate is the admins' alone), not only the permission to answer gates.
  const mayAnswer = session.may("answer_gate") && (session.status !== "signed-in" || answerRoles.includes(session.person.role));
  if (!mayAnswer) {
    return <p className={ui.dialogText}>{rolesSentence(answerRoles)} answers this gate; you can follow it here.</p>;
  }
  const title =
    pending?.decision === "approve" ? "Approve"
    : pending?.decision === "deny" ? "Deny"
    : pending?.answer ? `Answer "${pending.answer}"`
    : pending ? "Answer"
    : "";
  return (
    <div style={{ display: "flex", flexWrap: "wrap", gap: 8 }} data-field="gate-decision">
      {kind === "approval" ? (
        <>
          <button type="button" className={`${ui.button} ${ui.primary}`} onClick={() => setPending({ decision: "approve" })}>
            <Check size={14} aria-hidden /> Approve…
          </button>
          <button type="button" className={`${ui.button} ${ui.danger}`} onClick={() => setPending({ decision: "deny" })}>
            <X size={14} aria-hidden /> Deny…
          </button>
        </>
      ) : options.length === 0 ? (
        <button type="button" className={ui.button} onClick={() => setPending({ decision: "answer", answer: null })}>
          <MessageSquareReply size={14} aria-hidden /> Answer in words…
        </button>
      ) : (
        options.map((answer) => (
          <button key={answer} type="button" className={ui.button} onClick={() => setPending({ decision: "answer", answer })}>
            <MessageSquareReply size={14} aria-hidden /> {compact ? answer : `Answer "${answer}"`}…
          </button>
        ))
      )}
      <ReasonDialog
        open={pending !== null}
        onOpenChange={(o) => {
          if (!o) setPending(null);
        }}
        title={title}
        description={question}
        label="Your rationale (recorded with your decision)"
        confirm={title || "Decide"}
        danger={pending?.decision === "deny"}
        {...(pending?.decision === "answer" && pending.answer === null ? { firstLabel: "Your answer (the agent reads it)" } : {})}
        onConfirm={(rationale, written) =>
          ops.resolveGate
            .mutateAsync(
              pending?.decision === "answer" ? { gateId, rationale, decision: "answer", answer: pending.answer ?? written }
              : { gateId, rationale, decision: pending?.decision ?? "deny" },
            )
            .then((gate) =>
              toast.success(gate.status === "open" ? `${title}: recorded; the gate waits for its other approvals` : `${title}: recorded; the run continues by itself`),
            )
        }
      />
    </div>
  );
}

/** "An approver or admin", from the roles the gate names (an article before the first). */
function rolesSentence(roles: string[]): string {
  if (!roles.length) return "A member with the right role";
  const first = roles[0]!;
  return `${/^[aeiou]/.test(first) ? "An" : "A"} ${roles.join(" or ")}`;
}
