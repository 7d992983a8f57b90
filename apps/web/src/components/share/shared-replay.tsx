"use client";
// A share link's page: no account, no event stream — the run's replay read with the link's token (share.open,
// share.steps) and its screenshots as blob URLs carrying the token, password fields masked by the API.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { blobUrl } from "@phoneloop/api/contract";
import { useEffect, useMemo } from "react";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import { Problem } from "../problem.tsx";
import { STEPS_PAGE, type ReplaySource } from "../replay/replay-data.ts";
import { ReplayView } from "../replay/replay-view.tsx";

export function SharedReplay({ token }: { token: string }) {
  const { apiUrl } = useApi();
  const trpc = useTRPC();
  const header = useQuery({ ...trpc.share.open.queryOptions({ token }), retry: false });
  const steps = useInfiniteQuery({
    ...trpc.share.steps.infiniteQueryOptions({ token, limit: STEPS_PAGE }, { getNextPageParam: (page) => page.nextCursor ?? undefined }),
    enabled: header.isSuccess,
    retry: false,
  });
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = steps;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const items = useMemo(() => steps.data?.pages.flatMap((p) => p.items) ?? [], [steps.data]);
  const source = useMemo(
    (): ReplaySource | null => (header.data ? { header: header.data, steps: items, screenUrl: (sha) => blobUrl(apiUrl, sha, token), loading: steps.isLoading || Boolean(hasNextPage) } : null),
    [header.data, items, apiUrl, token, steps.isLoading, hasNextPage],
  );

  if (!source) {
    if (header.error) {
      const problem = describeProblem(header.error, apiUrl);
      if (problem.kind === "not_found") {
        return (
          <section role="alert" data-testid="share-gone">
            <h1>This link does not open a replay</h1>
            <p>It does not exist, was revoked or has expired. Ask whoever sent it for a new link.</p>
          </section>
        );
      }
      return <Problem problem={problem} apiUrl={apiUrl} what="the shared replay" />;
    }
    return <p>Loading the shared replay…</p>;
  }
  return <ReplayView source={source} origin="Shared replay · read-only · password fields masked" />;
}
