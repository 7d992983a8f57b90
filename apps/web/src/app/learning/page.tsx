import type { Metadata } from "next";
import { LearningLists } from "./learning-lists.tsx";

export const metadata: Metadata = { title: "Learning · PhoneLoop" };

export default function LearningPage() {
  return <LearningLists />;
}
