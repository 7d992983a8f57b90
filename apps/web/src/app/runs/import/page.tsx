import type { Metadata } from "next";
import { ImportedReplayView } from "../../../components/replay/imported-replay.tsx";

export const metadata: Metadata = { title: "Open an exported run · PhoneLoop" };

export default function ImportPage() {
  return <ImportedReplayView />;
}
