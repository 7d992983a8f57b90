import type { Metadata } from "next";
import { SuiteDetail } from "../../../components/suite/suite-detail.tsx";

export const metadata: Metadata = { title: "Suite run · PhoneLoop" };

export default async function SuiteRunPage({ params }: { params: Promise<{ suiteRunId: string }> }) {
  const { suiteRunId } = await params;
  return <SuiteDetail suiteRunId={decodeURIComponent(suiteRunId)} />;
}
