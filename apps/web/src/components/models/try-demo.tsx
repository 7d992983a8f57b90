"use client";
// "Try the demo" on the home page of a workspace with no runs yet: one click creates a goal from the built-in task
// with a payment step, connects the demo phone and starts the run in this tab. With no model endpoint configured
// the run is answered by the demo model — the reference policy, not AI — so a newcomer sees a whole run, its gate
// and its replay without configuring anything.
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { usePhone } from "../device/phone-store.tsx";
import { useRunner } from "../runner/runner-store.tsx";
import ui from "../ui/ui.module.css";
import styles from "./models.module.css";

/** The demo goal this tab started: kept while the person visits the gate and comes back (as long as the tab's runner). */
let demoGoalOfTab: string | null = null;

export function TryDemo() {
  const trpc = useTRPC();
  const { client, apiUrl } = useApi();
  const session = useSession();
  const phone = usePhone();
  const runner = useRunner();
  const runs = useQuery(trpc.run.list.queryOptions({ limit: 1 }));
  const status = useQuery(trpc.modelSettings.status.queryOptions({}));
  const tasks = useQuery(trpc.task.list.queryOptions({}));
  /** The demo goal waiting for the phone to connect before its run starts. */
  const [pending, setPending] = useState<string | null>(null);
  const [demoGoal, setDemoGoalState] = useState<string | null>(demoGoalOfTab);
  const setDemoGoal = (id: string) => setDemoGoalState((demoGoalOfTab = id));
  const [error, setError] = useState<string | null>(null);
  const started = useRef<string | null>(null);
  const attempted = useRef(false);
  const allowed = useRef(false);
  const task = tasks.data?.find((t) => t.payment) ?? tasks.data?.[0];

  const start = useMutation({
    mutationFn: async () => {
      if (!task) throw new Error("The built-in tasks could not be loaded; reload the page.");
      if (!phone.demoPhoneUrl) throw new Error("This installation runs no demo phone. Start PhoneLoop with `npm start`, which runs one, or connect your own phone on the Devices page.");
      const goal = await client.goal.create.mutate({
        title: `Demo: ${task.goal.length > 80 ? `${task.goal.slice(0, 79)}…` : task.goal}`,
        objective: task.goal,
        bounds: [`Work only in these apps: ${task.apps.join(", ")}`, ...(task.payment ? ["Pay only after a person approves the payment at its gate"] : [])],
        nonGoals: task.failIf.map((r) => `Not: ${r}`),
        acceptance: task.checks,
      });
      return goal.id;
    },
    onSuccess: (goalId) => {
      setDemoGoal(goalId);
      setPending(goalId);
      attempted.current = false;
      allowed.current = false;
      if (phone.state.status !== "connected" || phone.state.connection !== "demo") void phone.connectDemo();
    },
    onError: (e) => setError(e instanceof Error && !("data" in e) ? e.message : describeProblem(e, apiUrl).message),
  });

  // The demo phone asks "Allow USB debugging?" for this browser's new key: the click on "Try the demo" is the
  // person's consent, so the API answers it (it holds the phone's control token; the page never sees it).
  const waiting = phone.state.status === "connecting" && phone.state.connection === "demo" && phone.state.progress?.kind === "waiting_for_authorization";
  useEffect(() => {
    if (!pending || !waiting || allowed.current) return;
    allowed.current = true;
    client.demoPhone.allowBrowser.mutate({ keyName: phone.demoKeyName() ?? "" }).then(
      (r) => (r.allowed ? undefined : setError(r.reason)),
      (e: unknown) => setError(describeProblem(e, apiUrl).message),
    );
  }, [pending, waiting, client, apiUrl, phone]);

  // The run starts once the demo phone is connected (the runner reads the connected phone on its next render).
  useEffect(() => {
    if (!pending || started.current === pending) return;
    if (phone.state.status === "connecting") attempted.current = true;
    // Only a failure of the connection this click opened counts (not one shown before it).
    if (phone.state.status === "failed" && attempted.current) {
      setError(`${phone.state.problem.message} ${phone.state.problem.fix}`);
      setPending(null);
      return;
    }
    if (phone.state.status !== "connected" || runner.busy) return;
    started.current = pending;
    setPending(null);
    runner.startRun(pending).catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, [pending, phone.state, runner]);

  if (session.status !== "signed-in" || !session.may("run")) return null;
  const p = runner.progress && demoGoal && runner.progress.goalId === demoGoal ? runner.progress : null;
  const noRuns = runs.data ? runs.data.items.length === 0 : false;
  if (!noRuns && !demoGoal) return null;

  const demoModel = status.data?.mode !== "configured";
  const connecting = phone.state.status === "connecting";
  const working = start.isPending || pending !== null || connecting;
  return (
    <section className={`${styles.card} ${styles.demo}`} aria-labelledby="try-demo-heading" data-testid="try-demo">
      <h2 id="try-demo-heading">New here? Try the demo</h2>
      <p className={styles.lead}>
        One click creates a goal from a built-in task{task ? ` — “${task.goal}”` : ""}, connects the demo phone and runs it in this tab
        {demoModel ? (
          <>
            {" "}
            with the <strong>{status.data?.label ?? "Demo model — reference policy, not AI"}</strong>: a program that reads the screen, no AI, so nothing to configure
          </>
        ) : (
          " with this workspace's models"
        )}
        . {task?.payment ? "It pays at a checkout, so the run stops at a gate until a person approves the payment." : ""}
      </p>
      {!p ? (
        <div className={styles.actions}>
          <button type="button" className={`${ui.button} ${ui.primary}`} disabled={working || !task} onClick={() => (setError(null), start.mutate())}>
            {start.isPending ? "Creating the goal…" : connecting ? "Connecting the demo phone…" : "Try the demo"}
          </button>
        </div>
      ) : (
        <DemoProgress progress={p} goalId={demoGoal!} />
      )}
      {error ? (
        <p className={styles.error} role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

function DemoProgress({ progress: p, goalId }: { progress: NonNullable<ReturnType<typeof useRunner>["progress"]>; goalId: string }) {
  const trpc = useTRPC();
  const ended = p.phase === "ended" || p.phase === "failed";
  // The gate as the API has it: once answered (on its page, or by a teammate) it is no longer offered for review,
  // even in the moment before the run reports that it read the answer.
  const gate = useQuery({ ...trpc.gate.get.queryOptions({ gateId: p.gate?.gateId ?? "" }), enabled: p.gate !== null });
  const waiting = p.gate !== null && (gate.data?.status ?? "open") === "open";
  return (
    <div aria-live="polite" className={styles.lead}>
      <p>
        {ended
          ? `The demo run ended: ${p.outcome ? `${p.outcome.status} (${p.outcome.reason || p.outcome.endReason})` : (p.error ?? "see its replay")}.`
          : waiting
            ? "The run waits at a gate: a person must approve the payment."
            : p.gate
              ? "The gate is answered; the run goes on."
              : `Running — step ${p.step}${p.todo ? `: ${p.todo.title}` : ""}`}
      </p>
      <div className={styles.actions}>
        {p.gate && waiting ? (
          <Link className={`${ui.button} ${ui.primary}`} href={`/gates/${encodeURIComponent(p.gate.gateId)}`}>
            Review the gate
          </Link>
        ) : null}
        <Link className={ui.button} href={`/goals/${encodeURIComponent(goalId)}`}>
          Open the goal&apos;s board
        </Link>
        {p.runId ? (
          <Link className={ended ? `${ui.button} ${ui.primary}` : ui.button} href={`/runs/${encodeURIComponent(p.runId)}`}>
            {ended ? "Open the replay" : "Watch the run"}
          </Link>
        ) : null}
      </div>
    </div>
  );
}
