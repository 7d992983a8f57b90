import type { Metadata } from "next";
import { headers } from "next/headers";
import { preload } from "react-dom";
import { blobUrl } from "@phoneloop/api/contract";
import { createApiClient } from "@phoneloop/client";
import { RunReplay } from "../../../components/replay/run-replay.tsx";
import { readEnv } from "../../../env.ts";

export const metadata: Metadata = { title: "Run replay · PhoneLoop" };

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const runId = decodeURIComponent((await params).runId);
  // The first screenshot starts loading with the page itself, not after the scripts and the first page of steps.
  const { NEXT_PUBLIC_API_URL: apiUrl } = readEnv();
  const cookie = (await headers()).get("cookie");
  if (cookie) {
    const first = await createApiClient({ apiUrl, auth: { kind: "cookie", cookie } })
      .run.steps.query({ runId, limit: 1 })
      .catch(() => null); // the page itself says what went wrong
    const sha = first?.items[0]?.screen?.sha256;
    if (sha) preload(blobUrl(apiUrl, sha), { as: "image" });
  }
  return <RunReplay runId={runId} />;
}
