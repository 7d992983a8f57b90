"use client";
// A gate's approvals as its approval rule counts them, the same on the gate page and the Attention page (both read
// the core's one projection): "1 of 2 approvals" and who, that the run's starter cannot be one when the rule says
// so, that an expired gate went to the admins; and the batch decision on the open gates of the same category on
// the same target across runs (each gate decided as its own decision, the result told per gate).
import type { RouterOutputs } from "@phoneloop/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { CheckCheck, X } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { ReasonDialog } from "../ui/reason-dialog.tsx";
import ui from "../ui/ui.module.css";
import styles from "./gate.module.css";

export type GateApprovals = RouterOutputs["gate"]["get"]["approvals"];

/** "1 of 2 approvals: you, bea_…" and the rule's other conditions, for an open approval; for a question, only
 * its expiry and escalation (a question is answered once, by anyone who may answer it). */
export function ApprovalsLine({ approvals, kind }: { approvals: GateApprovals; kind: "approval" | "question" }) {
  const session = useSession();
  const me = session.status === "signed-in" ? session.person.userId : null;
  const who = approvals.approvedBy.map((u) => (u === me ? "you" : u));
  return (
    <div className={styles.approvals} data-field="approvals">
      {approvals.escalatedAt ? (
        <p role="status" className={styles.escalated} data-field="escalated">
          Escalated to the admins at {new Date(approvals.escalatedAt).toLocaleString("en")}: nobody decided in time, so only an admin may answer it now.
        </p>
      ) : null}
      {kind === "approval" && (approvals.approvalsNeeded > 1 || approvals.approvedBy.length > 0) ? (
        <p data-field="approval-count">
          <strong>
            {approvals.approvedBy.length} of {approvals.approvalsNeeded} approvals
          </strong>
          {who.length ? `: ${who.join(", ")}` : ""}
          {approvals.approvedBy.length < approvals.approvalsNeeded ? ` — ${approvals.approvalsNeeded - approvals.approvedBy.length} more needed from a different person` : ""}
        </p>
      ) : null}
      {kind === "approval" && !approvals.starterMayApprove ? <p className={styles.rule}>The person who started this run cannot approve it ({approvals.category} rule).</p> : null}
      {approvals.expiresAt && !approvals.escalatedAt ? (
        <p className={styles.rule}>
          If nobody decides by {new Date(approvals.expiresAt).toLocaleString("en")}, it is {approvals.afterExpiry === "escalate" ? "escalated to the admins" : "denied"}.
        </p>
      ) : null}
    </div>
  );
}

/** Approve or deny, with one rationale, every open gate of this one's batch (shown only when it has others). */
export function BatchDecision({ approvals }: { approvals: GateApprovals }) {
  const session = useSession();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { apiUrl } = useApi();
  const [pending, setPending] = useState<"approve" | "deny" | null>(null);
  const decide = useMutation({
    ...trpc.gate.decideBatch.mutationOptions(),
    onSuccess: () => void queryClient.invalidateQueries({ predicate: (q) => Array.isArray(q.queryKey[0]) }),
    onError: (e) => toast.error(describeProblem(e, apiUrl).message),
  });
  const n = approvals.batchGateIds.length;
  if (n < 2 || !session.may("answer_gate")) return null;
  const title = `${pending === "deny" ? "Deny" : "Approve"} all ${n} ${approvals.category} gates on ${approvals.target}`;
  return (
    <div className={styles.batch} data-field="batch">
      <p>
        {n} open {approvals.category} gates, across runs, would act on the same target (<code>{approvals.target}</code>).
      </p>
      <div style={{ display: "flex", flexWrap: "wrap", gap: 8 }}>
        <button type="button" className={ui.button} onClick={() => setPending("approve")}>
          <CheckCheck size={14} aria-hidden /> Approve all {n}…
        </button>
        <button type="button" className={`${ui.button} ${ui.danger}`} onClick={() => setPending("deny")}>
          <X size={14} aria-hidden /> Deny all {n}…
        </button>
      </div>
      <ReasonDialog
        open={pending !== null}
        onOpenChange={(o) => {
          if (!o) setPending(null);
        }}
        title={title}
        description={`Each of the ${n} gates records your decision as its own; a gate that needs more approvals stays open for them.`}
        label="Your rationale (recorded with each decision)"
        confirm={title}
        danger={pending === "deny"}
        onConfirm={(rationale) =>
          decide.mutateAsync({ gateIds: approvals.batchGateIds, decision: pending ?? "deny", rationale }).then((results) => {
            const refused = results.filter((r) => r.error);
            if (refused.length) toast.error(`${results.length - refused.length} of ${results.length} recorded; ${refused.map((r) => r.error).join(" ")}`);
            else toast.success(`Recorded on all ${results.length} gates; the runs continue by themselves`);
          })
        }
      />
    </div>
  );
}
