import type { Metadata } from "next";
import { SuiteList } from "../../components/suite/suite-list.tsx";

export const metadata: Metadata = { title: "Suites · PhoneLoop" };

export default function SuitesPage() {
  return <SuiteList />;
}
