import type { Metadata } from "next";
import { BoardView } from "../../../components/board/board-view.tsx";
import { RunPanel } from "../../../components/runner/run-panel.tsx";
import { WorkersStrip } from "../../../components/runner/workers-strip.tsx";

export const metadata: Metadata = { title: "Board · PhoneLoop" };

export default async function GoalBoardPage({ params }: { params: Promise<{ goalId: string }> }) {
  const { goalId } = await params;
  const id = decodeURIComponent(goalId);
  return (
    <>
      <RunPanel goalId={id} />
      <WorkersStrip />
      <BoardView goalId={id} />
    </>
  );
}
