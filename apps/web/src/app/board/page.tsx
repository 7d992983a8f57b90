import type { Metadata } from "next";
import { AllGoalsBoard } from "../../components/board/all-goals-board.tsx";
import { WorkersStrip } from "../../components/runner/workers-strip.tsx";

export const metadata: Metadata = { title: "Board · PhoneLoop" };

export default function AllGoalsBoardPage() {
  return (
    <>
      <WorkersStrip />
      <AllGoalsBoard />
    </>
  );
}
