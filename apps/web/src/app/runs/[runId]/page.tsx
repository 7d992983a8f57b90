import type { Metadata } from "next";
import { headers } from "next/headers";
import { preload } from "react-dom";
import { blobUrl } from "@phoneloop/api/contract";
import { createApiClient } from "@phoneloop/client";
import { STEPS_PAGE, type ReplayHeader, type ReplayStepsPage } from "../../../components/replay/replay-data.ts";
import { RunReplay } from "../../../components/replay/run-replay.tsx";
import { readEnv } from "../../../env.ts";

export const metadata: Metadata = { title: "Run replay · PhoneLoop" };

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const runId = decodeURIComponent((await params).runId);
  // The server reads the header and the first page of steps with the person's session: the first step renders with
  // the HTML and its screenshot loads with the page, not after the scripts and two more round trips.
  const { NEXT_PUBLIC_API_URL: apiUrl } = readEnv();
  const cookie = (await headers()).get("cookie");
  let initial: { header: ReplayHeader; firstPage: ReplayStepsPage } | null = null;
  if (cookie) {
    const client = createApiClient({ apiUrl, auth: { kind: "cookie", cookie } });
    initial = await Promise.all([client.run.replay.query({ runId }), client.run.steps.query({ runId, limit: STEPS_PAGE })])
      .then(([header, firstPage]) => ({ header, firstPage }))
      .catch(() => null); // the page asks again in the browser and says what went wrong
    const sha = initial?.firstPage.items[0]?.screen?.sha256;
    if (sha) preload(blobUrl(apiUrl, sha), { as: "image" });
  }
  return <RunReplay runId={runId} initial={initial} />;
}
