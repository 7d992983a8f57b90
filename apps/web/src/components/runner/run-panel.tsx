"use client";
// A goal's runner panel: start / pause / resume / cancel on the phone connected in this tab, the run's progress,
// and the runs another tab left behind that this one may resume.
import { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { Pause, Play, Square } from "lucide-react";
import Link from "next/link";
import { toast } from "sonner";
import { useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { useConnectedPhone } from "../device/phone-store.tsx";
import ui from "../ui/ui.module.css";
import { ResumeRunButton } from "./resume-run-button.tsx";
import { RunProgressView } from "./run-progress.tsx";
import { useRunner } from "./runner-store.tsx";
import { WorkerToggle } from "./worker-toggle.tsx";
import styles from "./runner.module.css";

export function RunPanel({ goalId }: { goalId: string }) {
  const trpc = useTRPC();
  const { client } = useApi();
  const session = useSession();
  const phone = useConnectedPhone();
  const runner = useRunner();
  const goal = useQuery(trpc.goal.get.queryOptions({ goalId }));
  // Newest first, in pages of 100; "Look at older runs" reads the next page.
  const runs = useInfiniteQuery(trpc.goal.runs.infiniteQueryOptions({ goalId }, { getNextPageParam: (page) => page.nextCursor }));
  const mine = runner.progress && runner.progress.goalId === goalId ? runner.progress : null;
  const elsewhere = runner.busy && !mine;
  const status = goal.data?.status;

  const start = async () => {
    try {
      await runner.startRun(goalId);
    } catch (e) {
      toast.error(e instanceof Error ? e.message : String(e));
    }
  };
  const pause = useMutation({
    mutationFn: () => client.goal.pause.mutate({ goalId }),
    onSuccess: () => toast.success("Goal paused: the run stops before its next step; Resume goes on from there."),
    onError: (e) => toast.error(`Could not pause: ${e.message}`),
  });
  const resume = useMutation({
    mutationFn: async () => {
      await client.goal.resume.mutate({ goalId });
      if (!phone || runner.busy) return;
      // The run the pause stopped goes on as the same run (its replay shows the stop and the resume); with none, a new run.
      const newest = (await client.goal.runs.query({ goalId, limit: 1 })).items[0];
      if (newest?.stop) await runner.resumeRun(newest.id);
      else await runner.startRun(goalId);
    },
    onError: (e) => toast.error(`Could not resume: ${e.message}`),
  });

  if (!session.may("run")) return null;

  // Left by another tab or worker (interrupted, or running on a lease that will lapse), or stopped for a cause that
  // can go away (the core's stop: its quota, a pause, a gate, a lost phone …), which this tab's own runs can be too.
  const resumable = (runs.data?.pages.flatMap((p) => p.items) ?? []).filter((r) => r.stop || ((r.status === "interrupted" || r.status === "running") && r.agentId !== runner.agentId));

  return (
    <section className={styles.panel} aria-label="Run on a phone">
      <div className={styles.row}>
        <h2 className={styles.heading}>Run</h2>
        <p className={styles.phone}>
          {phone ? (
            <>
              Phone: <strong>{phone.info.model}</strong> ({phone.connection === "usb" ? "USB" : "demo phone"})
            </>
          ) : (
            <>
              No phone connected in this tab. <Link href="/devices">Connect one on Devices</Link> to run this goal here.
            </>
          )}
        </p>
        <div className={styles.actions}>
          {status === "paused" ? (
            <button type="button" className={`${ui.button} ${ui.primary}`} disabled={resume.isPending} onClick={() => resume.mutate()}>
              <Play size={14} aria-hidden /> Resume goal
            </button>
          ) : (
            <button type="button" className={`${ui.button} ${ui.primary}`} disabled={!phone || runner.busy || status !== "active"} onClick={() => void start()}>
              <Play size={14} aria-hidden /> Start run
            </button>
          )}
          {status === "active" ? (
            <button type="button" className={ui.button} disabled={pause.isPending} onClick={() => pause.mutate()}>
              <Pause size={14} aria-hidden /> Pause goal
            </button>
          ) : null}
          {mine && runner.busy ? (
            <button type="button" className={`${ui.button} ${ui.danger}`} disabled={mine.phase === "stopping"} onClick={() => runner.cancelRun()}>
              <Square size={14} aria-hidden /> {mine.phase === "stopping" ? "Stopping…" : "Cancel run"}
            </button>
          ) : null}
        </div>
      </div>
      {status && status !== "active" && status !== "paused" ? <p className={styles.note}>This goal is {status}; it takes no new runs.</p> : null}
      {!phone && status === "active" ? null : elsewhere ? <p className={styles.note}>This tab is running another goal; one run at a time per phone.</p> : null}
      {mine ? <RunProgressView progress={mine} /> : null}
      {resumable.length > 0 ? (
        <div className={styles.resumable}>
          <h3>Runs to resume</h3>
          <ul>
            {resumable.map((r) => (
              <li key={r.id}>
                <Link href={`/runs/${encodeURIComponent(r.id)}`}>{r.id}</Link> — {r.status}, {r.steps} step{r.steps === 1 ? "" : "s"}
                {r.status === "running" && r.leaseUntil ? <> (its agent holds the todo until {new Date(r.leaseUntil).toLocaleTimeString()}; resuming waits for that)</> : null}
                {r.stop ? <> — stopped because {r.stop.cause}; {r.stop.remedy}</> : null}{" "}
                <ResumeRunButton runId={r.id} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {runs.hasNextPage ? (
        <button type="button" className={ui.button} disabled={runs.isFetchingNextPage} onClick={() => void runs.fetchNextPage()}>
          Look at older runs to resume
        </button>
      ) : null}
      <WorkerToggle />
    </section>
  );
}
