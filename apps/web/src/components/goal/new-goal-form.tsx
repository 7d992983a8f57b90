"use client";
// Create a goal: objective, bounds, non-goals, acceptance and a quota — from scratch or from a built-in task of the
// virtual phone's pack. "Create and run" starts it on the phone connected in this tab.
import { useMutation, useQuery } from "@tanstack/react-query";
import { Play, Plus } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { useConnectedPhone } from "../device/phone-store.tsx";
import { useRunner } from "../runner/runner-store.tsx";
import ui from "../ui/ui.module.css";
import styles from "./goal.module.css";
import { GATE_ANSWER_ROLES } from "@phoneloop/state/domain";

interface Draft {
  title: string;
  objective: string;
  bounds: string;
  nonGoals: string;
  acceptance: string;
  maxSteps: string;
  maxTokens: string;
  maxUsd: string;
  windowHours: string;
}

const EMPTY: Draft = { title: "", objective: "", bounds: "", nonGoals: "", acceptance: "", maxSteps: "", maxTokens: "", maxUsd: "", windowHours: "24" };

export interface BuiltinTaskView {
  id: string;
  goal: string;
  apps: string[];
  maxSteps: number;
  checks: string[];
  failIf: string[];
  payment: boolean;
}

/** A goal drafted from a built-in task: its text, where it may work, what must not happen, what is checked. */
export function draftFromTask(t: BuiltinTaskView): Draft {
  const first = t.goal.split("\n")[0]!.trim();
  return {
    title: first.length > 100 ? `${first.slice(0, 99)}…` : first,
    objective: t.goal,
    bounds: [`Work only in these apps: ${t.apps.join(", ")}`, ...(t.payment ? ["Pay only after a person approves the payment at its gate"] : [])].join("\n"),
    nonGoals: t.failIf.map((r) => `Not: ${r}`).join("\n"),
    acceptance: t.checks.join("\n"),
    maxSteps: String(t.maxSteps),
    maxTokens: "",
    maxUsd: "",
    windowHours: "24",
  };
}

const lines = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

/** A positive whole number, or null for an empty field; NaN marks a wrong entry. */
function count(s: string): number | null {
  if (!s.trim()) return null;
  const n = Number(s);
  return Number.isInteger(n) && n > 0 ? n : Number.NaN;
}

export function NewGoalForm() {
  const trpc = useTRPC();
  const { client, apiUrl } = useApi();
  const router = useRouter();
  const session = useSession();
  const phone = useConnectedPhone();
  const runner = useRunner();
  const tasks = useQuery(trpc.task.list.queryOptions({}));
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [taskId, setTaskId] = useState("");
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const chosen = tasks.data?.find((t) => t.id === taskId);

  const create = useMutation({
    mutationFn: async (run: boolean) => {
      const steps = count(draft.maxSteps);
      const tokens = count(draft.maxTokens);
      const usd = draft.maxUsd.trim() ? Number(draft.maxUsd) : null;
      const hours = Number(draft.windowHours || "24");
      if ([steps, tokens].some((n) => Number.isNaN(n))) throw new Error("Quota steps and tokens are whole numbers above 0 (or empty for no cap).");
      if (usd !== null && !(usd > 0)) throw new Error("The money cap is an amount in US dollars above 0, e.g. 0.50 (or empty for no cap).");
      if (!(hours > 0)) throw new Error("The quota window is a number of hours above 0, e.g. 24.");
      const capped = steps !== null || tokens !== null || usd !== null;
      const goal = await client.goal.create.mutate({
        title: draft.title.trim() || lines(draft.objective)[0] || "Untitled goal",
        objective: draft.objective.trim(),
        bounds: lines(draft.bounds),
        nonGoals: lines(draft.nonGoals),
        acceptance: lines(draft.acceptance),
        ...(capped ? { quota: { windowMs: Math.round(hours * 3_600_000), maxSteps: steps, maxTokens: tokens, maxMicroUsd: usd === null ? null : Math.round(usd * 1_000_000) } } : {}),
      });
      return { goal, run };
    },
    onSuccess: ({ goal, run }) => {
      toast.success(`Goal "${goal.title}" created`);
      router.push(`/goals/${encodeURIComponent(goal.id)}`);
      if (run) void runner.startRun(goal.id).catch((e: unknown) => toast.error(e instanceof Error ? e.message : String(e)));
    },
    onError: (e) => setError(describeProblem(e, apiUrl).message),
  });

  if (session.status === "signed-in" && !session.may("run")) {
    return (
      <p role="alert" className={styles.note}>
        Your role ({session.person.role}) may read goals but not create them; an admin can make you an operator on the Team page.
      </p>
    );
  }

  const set = (k: keyof Draft) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  const submit = (run: boolean) => (e?: FormEvent) => {
    e?.preventDefault();
    setError(null);
    if (!draft.objective.trim()) {
      setError("Write the objective: what should be done on the phone.");
      return;
    }
    create.mutate(run);
  };

  return (
    <form className={styles.form} onSubmit={submit(false)} aria-describedby={error ? `${id}-error` : undefined}>
      <fieldset className={styles.fieldset}>
        <legend>Start from</legend>
        <label className={ui.field}>
          A built-in task of the demo phone (optional)
          <select
            value={taskId}
            onChange={(e) => {
              setTaskId(e.target.value);
              const t = tasks.data?.find((x) => x.id === e.target.value);
              setDraft(t ? draftFromTask(t) : EMPTY);
            }}
          >
            <option value="">From scratch</option>
            {(tasks.data ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.id}
                {t.payment ? " (payment step)" : ""} — {t.goal.slice(0, 70)}
              </option>
            ))}
          </select>
        </label>
        {tasks.error ? <p className={styles.note}>The built-in tasks could not be loaded ({describeProblem(tasks.error, apiUrl).message}); write the goal yourself.</p> : null}
        {chosen?.payment ? <p className={styles.note}>This task pays for something: the run stops before paying and waits at a gate for an {GATE_ANSWER_ROLES.join(" or ")}.</p> : null}
      </fieldset>

      <label className={ui.field}>
        Title
        <input value={draft.title} onChange={set("title")} maxLength={200} placeholder="Defaults to the objective's first line" />
      </label>
      <label className={ui.field}>
        Objective (required)
        <textarea value={draft.objective} onChange={set("objective")} rows={3} required placeholder="What should be done on the phone, e.g. Turn off Wi-Fi." />
      </label>
      <div className={styles.columns}>
        <label className={ui.field}>
          Bounds (one a line)
          <textarea value={draft.bounds} onChange={set("bounds")} rows={3} placeholder="Work only in Settings" />
        </label>
        <label className={ui.field}>
          Non-goals (one a line)
          <textarea value={draft.nonGoals} onChange={set("nonGoals")} rows={3} placeholder="Do not turn on airplane mode" />
        </label>
        <label className={ui.field}>
          Acceptance (one a line)
          <textarea value={draft.acceptance} onChange={set("acceptance")} rows={3} placeholder="Wi-Fi is off" />
        </label>
      </div>
      <fieldset className={styles.fieldset}>
        <legend>Quota (empty: no cap)</legend>
        <div className={styles.quota}>
          <label className={ui.field}>
            Steps
            <input inputMode="numeric" value={draft.maxSteps} onChange={set("maxSteps")} />
          </label>
          <label className={ui.field}>
            Tokens
            <input inputMode="numeric" value={draft.maxTokens} onChange={set("maxTokens")} />
          </label>
          <label className={ui.field}>
            Money (USD)
            <input inputMode="decimal" value={draft.maxUsd} onChange={set("maxUsd")} />
          </label>
          <label className={ui.field}>
            Per window of (hours)
            <input inputMode="decimal" value={draft.windowHours} onChange={set("windowHours")} />
          </label>
        </div>
      </fieldset>

      {error ? (
        <p id={`${id}-error`} role="alert" className={styles.error}>
          {error}
        </p>
      ) : null}
      <div className={ui.actions}>
        <button type="submit" className={ui.button} disabled={create.isPending}>
          <Plus size={14} aria-hidden /> Create goal
        </button>
        <button type="button" className={`${ui.button} ${ui.primary}`} disabled={create.isPending || !phone || runner.busy} onClick={() => submit(true)()}>
          <Play size={14} aria-hidden /> Create and run on {phone ? phone.info.model : "a phone"}
        </button>
      </div>
      {!phone ? (
        <p className={styles.note}>
          To run it right away, <Link href="/devices">connect a phone</Link> in this tab first.
        </p>
      ) : null}
    </form>
  );
}
