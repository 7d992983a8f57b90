"use client";
// What the agents learned in this workspace: skills distilled from runs (with their success counts; a person edits,
// disables or deletes one), the deeplink shortcuts of each app version (validated or retired), and the lessons the
// summarizer wrote (edited or deleted by a person), each with the run it came from.
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import styles from "./learning.module.css";

export function LearningLists() {
  const session = useSession();
  if (session.status !== "signed-in") return null;
  const canEdit = session.may("run");
  return (
    <main className={styles.page}>
      <h1>Learning</h1>
      <p className={styles.lead}>What earlier runs left for the next ones: skills, deeplink shortcuts and lessons, per app.</p>
      <Skills canEdit={canEdit} />
      <Shortcuts />
      <Lessons canEdit={canEdit} />
    </main>
  );
}

const problem = (e: { message: string } | null) => (e ? <p role="alert" className={styles.error}>{e.message}</p> : null);

/** Each list comes in pages (100 each); "Show more" reads the next one. */
const pages = { getNextPageParam: (page: { nextCursor: string | null }) => page.nextCursor };

function ShowMore({ list, what }: { list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> }; what: string }) {
  return list.hasNextPage ? (
    <button type="button" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
      Show more {what}
    </button>
  ) : null;
}

function Skills({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(trpc.skill.list.infiniteQueryOptions({}, pages));
  const refresh = () => queryClient.invalidateQueries(trpc.skill.list.pathFilter());
  const update = useMutation(trpc.skill.update.mutationOptions({ onSuccess: () => refresh() }));
  const remove = useMutation(trpc.skill.delete.mutationOptions({ onSuccess: () => refresh() }));
  const [editing, setEditing] = useState<string | null>(null);
  const skills = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className={styles.section} aria-labelledby="skills-heading">
      <h2 id="skills-heading">Skills</h2>
      <p className={styles.lead}>Paths a run took that a replay on a fresh phone confirmed. Only validated skills are offered to runs; a skill that hands back to the model is repaired from the run that finished the work.</p>
      {problem(list.error ?? update.error ?? remove.error)}
      {list.isSuccess && !skills.length ? <p>No skills yet: a run that finishes a todo leaves one.</p> : null}
      {skills.length ? (
        <table className={styles.table} aria-label="Skills">
          <thead>
            <tr>
              <th scope="col">Skill</th>
              <th scope="col">App</th>
              <th scope="col">Status</th>
              <th scope="col">Uses</th>
              <th scope="col">From run</th>
              {canEdit ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {skills.map((s) => (
              <tr key={s.id} data-skill-id={s.id}>
                <td>
                  {editing === s.id ? (
                    <form
                      className={styles.edit}
                      onSubmit={(e) => {
                        e.preventDefault();
                        const f = new FormData(e.currentTarget);
                        update.mutate({ skillId: s.id, name: String(f.get("name") ?? "").trim(), goal: String(f.get("goal") ?? "") }, { onSuccess: () => setEditing(null) });
                      }}
                    >
                      <label>
                        Name
                        <input name="name" required defaultValue={s.name} />
                      </label>
                      <label>
                        What it does
                        <input name="goal" defaultValue={s.goal} />
                      </label>
                      <button type="submit" disabled={update.isPending}>Save</button>
                      <button type="button" onClick={() => setEditing(null)}>Cancel</button>
                    </form>
                  ) : (
                    <>
                      <strong>{s.name}</strong> (version {s.version})
                      <br />
                      {s.goal}
                    </>
                  )}
                </td>
                <td>
                  {s.app} {s.appVersion}
                </td>
                <td>{s.status}</td>
                <td>
                  {s.successes} succeeded, {s.failures} handed back
                </td>
                <td>
                  <Link href={`/runs/${encodeURIComponent(s.runId)}`}>{s.runId}</Link>
                </td>
                {canEdit ? (
                  <td>
                    <div className={styles.actions}>
                      <button type="button" onClick={() => setEditing(s.id)} aria-label={`Edit skill ${s.name}`}>
                        Edit
                      </button>
                      <button type="button" disabled={update.isPending} onClick={() => update.mutate({ skillId: s.id, status: s.status === "disabled" ? "validated" : "disabled" })} aria-label={`${s.status === "disabled" ? "Enable" : "Disable"} skill ${s.name}`}>
                        {s.status === "disabled" ? "Enable" : "Disable"}
                      </button>
                      <button
                        type="button"
                        disabled={remove.isPending}
                        onClick={() => {
                          if (window.confirm(`Delete the skill "${s.name}"? Runs will no longer be offered it.`)) remove.mutate({ skillId: s.id });
                        }}
                        aria-label={`Delete skill ${s.name}`}
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <ShowMore list={list} what="skills" />
    </section>
  );
}

function Shortcuts() {
  const trpc = useTRPC();
  const list = useInfiniteQuery(trpc.shortcut.list.infiniteQueryOptions({}, pages));
  const shortcuts = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className={styles.section} aria-labelledby="shortcuts-heading">
      <h2 id="shortcuts-heading">Shortcuts</h2>
      <p className={styles.lead}>Deeplinks each app version declares. A run tries a new one on its phone: the planner is offered only validated ones; one failed try retires a shortcut.</p>
      {problem(list.error)}
      {list.isSuccess && !shortcuts.length ? <p>No shortcuts yet: a run in an app finds them in the phone&apos;s package manager.</p> : null}
      {shortcuts.length ? (
        <table className={styles.table} aria-label="Shortcuts">
          <thead>
            <tr>
              <th scope="col">Deeplink</th>
              <th scope="col">App</th>
              <th scope="col">Opens</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {shortcuts.map((s) => (
              <tr key={s.id}>
                <td>
                  <code>{s.uri}</code>
                </td>
                <td>
                  {s.app} {s.appVersion}
                </td>
                <td>{s.activity}</td>
                <td>
                  {s.status}
                  {s.reason ? `: ${s.reason}` : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <ShowMore list={list} what="shortcuts" />
    </section>
  );
}

function Lessons({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(trpc.lesson.list.infiniteQueryOptions({}, pages));
  const refresh = () => queryClient.invalidateQueries(trpc.lesson.list.pathFilter());
  const update = useMutation(trpc.lesson.update.mutationOptions({ onSuccess: () => refresh() }));
  const remove = useMutation(trpc.lesson.delete.mutationOptions({ onSuccess: () => refresh() }));
  const [editing, setEditing] = useState<string | null>(null);
  const lessons = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className={styles.section} aria-labelledby="lessons-heading">
      <h2 id="lessons-heading">Lessons</h2>
      <p className={styles.lead}>What a run learned about an app (at most three per run). The planner of a later run in the same app, on a similar goal, reads them.</p>
      {problem(list.error ?? update.error ?? remove.error)}
      {list.isSuccess && !lessons.length ? <p>No lessons yet: the summarizer writes them when a run ends.</p> : null}
      {lessons.length ? (
        <table className={styles.table} aria-label="Lessons">
          <thead>
            <tr>
              <th scope="col">Lesson</th>
              <th scope="col">App</th>
              <th scope="col">From run</th>
              {canEdit ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {lessons.map((l) => (
              <tr key={l.id} data-lesson-id={l.id}>
                <td>
                  {editing === l.id ? (
                    <form
                      className={styles.edit}
                      onSubmit={(e) => {
                        e.preventDefault();
                        update.mutate({ lessonId: l.id, text: String(new FormData(e.currentTarget).get("text") ?? "") }, { onSuccess: () => setEditing(null) });
                      }}
                    >
                      <label>
                        Lesson
                        <textarea name="text" required minLength={3} maxLength={1000} defaultValue={l.text} />
                      </label>
                      <button type="submit" disabled={update.isPending}>Save</button>
                      <button type="button" onClick={() => setEditing(null)}>Cancel</button>
                    </form>
                  ) : (
                    <>
                      <strong>{l.kind === "failed" ? "What failed" : "What worked"}:</strong> {l.text}
                    </>
                  )}
                </td>
                <td>{l.app}</td>
                <td>
                  <Link href={`/runs/${encodeURIComponent(l.runId)}`}>{l.runId}</Link>
                </td>
                {canEdit ? (
                  <td>
                    <div className={styles.actions}>
                      <button type="button" onClick={() => setEditing(l.id)} aria-label={`Edit lesson: ${l.text.slice(0, 40)}`}>
                        Edit
                      </button>
                      <button
                        type="button"
                        disabled={remove.isPending}
                        onClick={() => {
                          if (window.confirm("Delete this lesson? Later runs will no longer read it.")) remove.mutate({ lessonId: l.id });
                        }}
                        aria-label={`Delete lesson: ${l.text.slice(0, 40)}`}
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <ShowMore list={list} what="lessons" />
    </section>
  );
}
