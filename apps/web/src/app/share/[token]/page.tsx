import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { preload } from "react-dom";
import { blobUrl } from "@phoneloop/api/contract";
import { codeOf, createApiClient, toControlPlaneError } from "@phoneloop/client";
import { SharedReplay } from "../../../components/share/shared-replay.tsx";
import { readEnv } from "../../../env.ts";

export const metadata: Metadata = { title: "Shared replay · PhoneLoop", robots: { index: false, follow: false } };

export default async function SharePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const shareToken = decodeURIComponent(token);
  // A link that does not open (unknown, revoked, expired) is an HTTP 404 page, not a page saying so with a 200.
  const { NEXT_PUBLIC_API_URL: apiUrl } = readEnv();
  try {
    const client = createApiClient({ apiUrl, auth: { kind: "none" } });
    const [, first] = await Promise.all([client.share.open.query({ token: shareToken }), client.share.steps.query({ token: shareToken, limit: 1 })]);
    // The first screenshot starts loading with the page itself.
    const sha = first.items[0]?.screen?.sha256;
    if (sha) preload(blobUrl(apiUrl, sha, shareToken), { as: "image" });
  } catch (e) {
    if (codeOf(toControlPlaneError(e, apiUrl)) === "NOT_FOUND") notFound();
    // The API is unreachable or failed: the page says so itself (and retries) below.
  }
  return <SharedReplay token={shareToken} />;
}
