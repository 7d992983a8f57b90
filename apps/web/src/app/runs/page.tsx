import type { Metadata } from "next";
import { RunList } from "../../components/replay/run-list.tsx";

export const metadata: Metadata = { title: "Runs · PhoneLoop" };

export default function RunsPage() {
  return <RunList />;
}
