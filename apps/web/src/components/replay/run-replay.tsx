"use client";
// A member's run page: the replay read through run.replay and run.steps (pages of steps, all of them fetched in
// turn), live while the run goes — the event stream marks the run's queries stale and they refetch. The header
// offers sharing and export, and for a run stopped for a cause that can go away, what removes it and a resume on
// this tab's phone; a reviewer grades the run below the report.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { blobUrl } from "@phoneloop/api/contract";
import Link from "next/link";
import { useEffect, useMemo } from "react";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useStreamState } from "../../lib/live-cache.tsx";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { LiveBadge } from "../live-badge.tsx";
import { Problem } from "../problem.tsx";
import { ShareDialog } from "../share/share-dialog.tsx";
import { ExportButton } from "./export-button.tsx";
import { GradeForm } from "./grade-form.tsx";
import { STEPS_PAGE, type ReplayHeader, type ReplaySource, type ReplayStepsPage } from "./replay-data.ts";
import { ReplayView } from "./replay-view.tsx";
import { ResumeRunButton } from "../runner/resume-run-button.tsx";
import { TakeoverPanel } from "../runner/takeover-panel.tsx";

/** `initial`: what the server read for the page (the header and the first page of steps), so the first screen renders with the HTML. */
export function RunReplay({ runId, initial }: { runId: string; initial?: { header: ReplayHeader; firstPage: ReplayStepsPage } | null }) {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const stream = useStreamState();
  const session = useSession();
  const header = useQuery({ ...trpc.run.replay.queryOptions({ runId }), ...(initial ? { initialData: initial.header } : {}) });
  const steps = useInfiniteQuery({
    ...trpc.run.steps.infiniteQueryOptions({ runId, limit: STEPS_PAGE }, { getNextPageParam: (page) => page.nextCursor ?? undefined }),
    ...(initial ? { initialData: { pages: [initial.firstPage], pageParams: [null] } } : {}),
  });
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = steps;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  const items = useMemo(() => steps.data?.pages.flatMap((p) => p.items) ?? [], [steps.data]);
  const source = useMemo(
    (): ReplaySource | null => (header.data ? { header: header.data, steps: items, screenUrl: (sha) => blobUrl(apiUrl, sha), loading: steps.isLoading || Boolean(hasNextPage) } : null),
    [header.data, items, apiUrl, steps.isLoading, hasNextPage],
  );

  if (!source) {
    if (header.error) return <Problem problem={describeProblem(header.error, apiUrl)} apiUrl={apiUrl} what={`run ${runId}`} />;
    return <p>Loading the run…</p>;
  }
  const stop = source.header.run.stop;
  return (
    <>
      <p style={{ margin: 0, fontSize: 13 }}>
        <Link href="/runs">Runs</Link> / <Link href={`/goals/${encodeURIComponent(source.header.goal.id)}`}>Goal</Link> / Run <code>{runId}</code>
      </p>
      {stop ? (
        <p role="status" style={{ margin: 0, fontSize: 13 }}>
          This run stopped because {stop.cause}; {stop.remedy}.
        </p>
      ) : null}
      {source.header.run.status === "running" ? <TakeoverPanel runId={runId} /> : null}
      <ReplayView
        source={source}
        live={source.header.run.status === "running" ? <LiveBadge state={stream} /> : null}
        actions={
          <>
            {session.may("run") && source.header.run.stop ? <ResumeRunButton runId={runId} /> : null}
            {session.may("share") ? <ShareDialog runId={runId} /> : null}
            <ExportButton source={source} complete={!source.loading} />
          </>
        }
        review={session.may("answer_gate") ? <GradeForm runId={runId} current={source.header.run.grade} note={source.header.run.gradeNote} /> : null}
      />
    </>
  );
}
