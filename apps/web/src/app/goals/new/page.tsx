import type { Metadata } from "next";
import Link from "next/link";
import { NewGoalForm } from "../../../components/goal/new-goal-form.tsx";
import styles from "../../../components/goal/goal.module.css";

export const metadata: Metadata = { title: "New goal · PhoneLoop" };

export default function NewGoalPage() {
  return (
    <div className={styles.page}>
      <p>
        <Link href="/board">← All goals</Link>
      </p>
      <h1>New goal</h1>
      <p className={styles.note}>
        Say what should be done, where the agent may work, what it must not do and how you will know it is done. The planner turns it into todos when a run starts.
      </p>
      <NewGoalForm />
    </div>
  );
}
