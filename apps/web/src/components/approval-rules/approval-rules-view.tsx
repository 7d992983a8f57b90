"use client";
// Settings → Approval rules: per approval category (money, destructive, credentials, permission, other), how many
// distinct approvers a gate needs, whether the person who started the run or created the goal may be one of them,
// a time-to-live and what its expiry does (deny, or escalate to the admins). Admins only: the API refuses others,
// and so does this page, saying who can. A rule applies to gates opened after it is saved.
import type { RouterOutputs } from "@phoneloop/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import ui from "../ui/ui.module.css";
import styles from "../ui/settings-page.module.css";

type Rule = RouterOutputs["approvalRule"]["list"][number];

const CATEGORY_NOTES: Record<Rule["category"], string> = {
  money: "payments, purchases, transfers: anything that moves money",
  destructive: "deleting, erasing, resetting, cancelling",
  credentials: "passwords, codes, secrets typed or revealed",
  permission: "granting an app a permission or changing a protection",
  other: "every other approval and the agent's questions",
};

export function ApprovalRulesView() {
  const trpc = useTRPC();
  const session = useSession();
  const { apiUrl } = useApi();
  const admin = session.status === "signed-in" && session.may("admin");
  const rules = useQuery({ ...trpc.approvalRule.list.queryOptions({}), enabled: admin });
  return (
    <div className={styles.page}>
      <header>
        <h1>Approval rules</h1>
        <p className={styles.lead}>
          Who must approve what the agent is about to do, per kind of action. A rule applies to gates opened after you save it; without one, a gate needs one approval from an approver or admin, and nothing happens when nobody answers.
        </p>
      </header>
      {!admin ? (
        <p role="alert" className={styles.lead}>
          Only an admin of this workspace sets approval rules. Ask an admin on the Team page.
        </p>
      ) : rules.isPending ? (
        <p className={styles.lead}>Loading the approval rules…</p>
      ) : rules.error ? (
        <p role="alert" className={styles.error}>
          {describeProblem(rules.error, apiUrl).message}
        </p>
      ) : (
        rules.data.map((r) => <RuleForm key={r.category} rule={r} />)
      )}
    </div>
  );
}

function RuleForm({ rule }: { rule: Rule }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { apiUrl } = useApi();
  const [error, setError] = useState<string | null>(null);
  const [afterExpiry, setAfterExpiry] = useState(rule.afterExpiry);
  const save = useMutation({
    ...trpc.approvalRule.set.mutationOptions(),
    onSuccess: () => {
      setError(null);
      toast.success(`The ${rule.category} rule is saved; gates opened from now on follow it`);
      void queryClient.invalidateQueries({ queryKey: trpc.approvalRule.list.queryKey() });
    },
    onError: (e) => setError(describeProblem(e, apiUrl).message),
  });
  const id = `rule-${rule.category}`;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const minutes = String(f.get("ttl") ?? "").trim();
    save.mutate({
      category: rule.category,
      approvalsNeeded: Number(f.get("approvals")),
      starterMayApprove: f.get("starter") === "on",
      ttlMs: minutes ? Math.round(Number(minutes) * 60_000) : null,
      afterExpiry,
    });
  };
  return (
    <section className={styles.card} aria-labelledby={`${id}-heading`} data-category={rule.category}>
      <h2 id={`${id}-heading`}>{rule.category}</h2>
      <p className={styles.lead}>{CATEGORY_NOTES[rule.category]}</p>
      <form className={styles.form} onSubmit={submit} aria-describedby={error ? `${id}-error` : undefined}>
        <label className={ui.field}>
          Approvals needed
          <input name="approvals" type="number" min={1} max={10} required defaultValue={rule.approvalsNeeded} />
        </label>
        <label className={ui.field}>
          Time to answer (minutes, empty: no limit)
          <input name="ttl" type="number" min={1} max={10080} step={1} defaultValue={rule.ttlMs === null ? "" : Math.round(rule.ttlMs / 60_000)} />
        </label>
        <label className={ui.field}>
          When nobody answers in time
          <select name="afterExpiry" value={afterExpiry} onChange={(e) => setAfterExpiry(e.target.value as Rule["afterExpiry"])}>
            <option value="deny">Deny it</option>
            <option value="escalate">Escalate to the admins</option>
          </select>
        </label>
        <label className={styles.check}>
          <input name="starter" type="checkbox" defaultChecked={rule.starterMayApprove} />
          The run&apos;s starter may approve
        </label>
        <div className={ui.actions}>
          <button type="submit" className={`${ui.button} ${ui.primary}`} disabled={save.isPending}>
            Save the {rule.category} rule
          </button>
        </div>
      </form>
      {error ? (
        <p role="alert" id={`${id}-error`} className={styles.error}>
          {error}
        </p>
      ) : null}
      <p className={styles.saved}>{rule.updatedAt ? `Saved ${new Date(rule.updatedAt).toLocaleString("en")} by ${rule.updatedBy}` : "Not saved yet: the defaults apply."}</p>
    </section>
  );
}
