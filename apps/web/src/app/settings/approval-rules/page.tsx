import type { Metadata } from "next";
import { ApprovalRulesView } from "../../../components/approval-rules/approval-rules-view.tsx";

export const metadata: Metadata = { title: "Approval rules · PhoneLoop" };

export default function ApprovalRulesPage() {
  return <ApprovalRulesView />;
}
