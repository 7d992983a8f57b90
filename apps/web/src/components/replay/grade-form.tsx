"use client";
// A reviewer's grade of the run: A–D with a note; the API records who graded and when.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { RUN_GRADES, type RunGrade } from "@phoneloop/state/domain";
import { useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "../../lib/trpc.ts";
import uiStyles from "../ui/ui.module.css";
import { GRADE_MEANING } from "./replay-data.ts";
import styles from "./replay.module.css";

export function GradeForm({ runId, current, note }: { runId: string; current: string | null; note: string | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [grade, setGrade] = useState<RunGrade | null>((RUN_GRADES as readonly string[]).includes(current ?? "") ? (current as RunGrade) : null);
  const [text, setText] = useState(note ?? "");
  const save = useMutation(
    trpc.run.grade.mutationOptions({
      onSuccess: async (_run, input) => {
        toast.success(`Graded ${input.grade}.`);
        await queryClient.invalidateQueries({ queryKey: trpc.run.replay.queryKey({ runId }) });
      },
      onError: (e) => toast.error(`The grade was not saved: ${e.message}`),
    }),
  );
  return (
    <form
      className={styles.gradeForm}
      onSubmit={(e) => {
        e.preventDefault();
        if (grade) save.mutate({ runId, grade, note: text });
      }}
      aria-label="Grade this run"
    >
      <fieldset className={styles.gradeChoices} role="radiogroup" aria-label="Grade">
        {RUN_GRADES.map((g) => (
          <label key={g}>
            <input type="radio" name="grade" value={g} checked={grade === g} onChange={() => setGrade(g)} />
            <strong>{g}</strong> {GRADE_MEANING[g]}
          </label>
        ))}
      </fieldset>
      <label className={uiStyles.field}>
        Note (what the reviewer saw)
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={2} maxLength={2000} />
      </label>
      <div>
        <button type="submit" className={`${uiStyles.button} ${uiStyles.primary}`} disabled={!grade || save.isPending}>
          {current ? "Change the grade" : "Save the grade"}
        </button>
      </div>
    </form>
  );
}
