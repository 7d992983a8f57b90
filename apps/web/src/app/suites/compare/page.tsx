import type { Metadata } from "next";
import { Empty } from "../../../components/empty.tsx";
import { SuiteCompare } from "../../../components/suite/suite-compare.tsx";

export const metadata: Metadata = { title: "Compare suite runs · PhoneLoop" };

export default async function CompareSuitesPage({ searchParams }: { searchParams: Promise<{ a?: string | string[]; b?: string | string[] }> }) {
  const { a, b } = await searchParams;
  if (typeof a !== "string" || typeof b !== "string" || !a || !b) {
    return <Empty title="Pick two suite runs to compare">Open Suites, tick two suite runs and choose “Compare the two picked suite runs”.</Empty>;
  }
  return <SuiteCompare a={a} b={b} />;
}
