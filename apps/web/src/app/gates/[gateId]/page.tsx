import type { Metadata } from "next";
import { GateReview } from "../../../components/gate/gate-review.tsx";

export const metadata: Metadata = { title: "Gate review · PhoneLoop" };

export default async function GatePage({ params }: { params: Promise<{ gateId: string }> }) {
  const { gateId } = await params;
  return <GateReview gateId={decodeURIComponent(gateId)} />;
}
