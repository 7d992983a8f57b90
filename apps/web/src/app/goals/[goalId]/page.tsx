import type { Metadata } from "next";
import { BoardView } from "../../../components/board/board-view.tsx";

export const metadata: Metadata = { title: "Board · PhoneLoop" };

export default async function GoalBoardPage({ params }: { params: Promise<{ goalId: string }> }) {
  const { goalId } = await params;
  return <BoardView goalId={decodeURIComponent(goalId)} />;
}
