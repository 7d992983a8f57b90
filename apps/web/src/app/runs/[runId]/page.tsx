import type { Metadata } from "next";
import { RunReplay } from "../../../components/replay/run-replay.tsx";

export const metadata: Metadata = { title: "Run replay · PhoneLoop" };

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return <RunReplay runId={decodeURIComponent(runId)} />;
}
