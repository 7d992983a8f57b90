"use client";
// What the agents learned in this workspace: skills distilled from runs (their description, parameters with the
// values of the run each came from, steps each with the screenshot of the screen it expects in that run, and success
// counts; a person edits, disables or deletes one), the deeplink shortcuts of each app version (validated or
// retired), and the lessons the summarizer wrote (edited or deleted by a person), each with the run it came from.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { blobUrl } from "@phoneloop/api/contract";
import type { RouterOutputs } from "@phoneloop/client";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { useApi } from "../../lib/api.tsx";
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

interface PagedList<T> {
  data?: { pages: { items: T[] }[] } | undefined;
  error: { message: string } | null;
  isSuccess: boolean;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/** One learned kind as a section: its heading and what it is, the table of its rows a page at a time, or why it is empty. */
function ListSection<T extends { id: string }>(props: {
  id: string;
  title: string;
  lead: string;
  empty: string;
  columns: string[];
  list: PagedList<T>;
  /** A failed edit or delete, shown with the list's own errors. */
  error?: { message: string } | null;
  row: (item: T) => ReactNode;
}) {
  const { id, title, list } = props;
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className={styles.section} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      <p className={styles.lead}>{props.lead}</p>
      {problem(list.error ?? props.error ?? null)}
      {list.isSuccess && !items.length ? <p>{props.empty}</p> : null}
      {items.length ? (
        <table className={styles.table} aria-label={title}>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{items.map(props.row)}</tbody>
        </table>
      ) : null}
      <ShowMore list={list} what={title.toLowerCase()} />
    </section>
  );
}

/** A row's text edited where it stands: its fields, Save and Cancel. */
function EditInPlace({ pending, onSave, onCancel, children }: { pending: boolean; onSave: (form: FormData) => void; onCancel: () => void; children: ReactNode }) {
  return (
    <form
      className={styles.edit}
      onSubmit={(e) => {
        e.preventDefault();
        onSave(new FormData(e.currentTarget));
      }}
    >
      {children}
      <button type="submit" disabled={pending}>
        Save
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/** A row's actions cell: Edit, what else the row offers (`children`), Delete; each button names its row. */
function RowActions({ label, onEdit, onDelete, deleting, children }: { label: string; onEdit: () => void; onDelete: () => void; deleting: boolean; children?: ReactNode }) {
  return (
    <td>
      <div className={styles.actions}>
        <button type="button" onClick={onEdit} aria-label={`Edit ${label}`}>
          Edit
        </button>
        {children}
        <button type="button" disabled={deleting} onClick={onDelete} aria-label={`Delete ${label}`}>
          Delete
        </button>
      </div>
    </td>
  );
}

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
  const disable = useMutation(trpc.skill.disable.mutationOptions({ onSuccess: () => refresh() }));
  const enable = useMutation(trpc.skill.enable.mutationOptions({ onSuccess: () => refresh() }));
  const approve = useMutation(trpc.skill.approve.mutationOptions({ onSuccess: () => refresh() }));
  const remove = useMutation(trpc.skill.delete.mutationOptions({ onSuccess: () => refresh() }));
  const changing = disable.isPending || enable.isPending || approve.isPending;
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <ListSection
      id="skills"
      title="Skills"
      lead="Paths a run took. A candidate is offered to runs marked unverified; it becomes validated when a run uses it, every screen is as expected and the todo is accepted — or when you approve it. A skill that hands back to the model is repaired from the run that finished the work; two hand-backs in a row retire a version. Enabling a disabled skill gives it back the status it had."
      empty="No skills yet: a run that finishes a todo leaves one."
      columns={["Skill", "App", "Status", "Uses", "From run", ...(canEdit ? ["Actions"] : [])]}
      list={list}
      error={update.error ?? disable.error ?? enable.error ?? approve.error ?? remove.error}
      row={(s) => (
        <tr key={s.id} data-skill-id={s.id}>
          <td>
            {editing === s.id ? (
              <EditInPlace
                pending={update.isPending}
                onCancel={() => setEditing(null)}
                onSave={(f) => update.mutate({ skillId: s.id, name: String(f.get("name") ?? "").trim(), goal: String(f.get("goal") ?? "") }, { onSuccess: () => setEditing(null) })}
              >
                <label>
                  Name
                  <input name="name" required defaultValue={s.name} />
                </label>
                <label>
                  What it does
                  <input name="goal" defaultValue={s.goal} />
                </label>
              </EditInPlace>
            ) : (
              <>
                <strong>{s.name}</strong> (version {s.version})
                <br />
                {s.goal}
                {s.steps?.description && s.steps.description !== s.goal ? <p className={styles.description}>{s.steps.description}</p> : null}
                {s.steps?.parameters.length ? <p className={styles.params}>Parameters: {parameterWords(s.steps)}</p> : null}
                <SkillDetails skillId={s.id} name={s.name} steps={s.steps} />
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
            <RowActions
              label={`skill ${s.name}`}
              onEdit={() => setEditing(s.id)}
              deleting={remove.isPending}
              onDelete={() => {
                if (window.confirm(`Delete the skill "${s.name}"? Runs will no longer be offered it.`)) remove.mutate({ skillId: s.id });
              }}
            >
              {s.status === "candidate" || s.status === "retired" ? (
                <button
                  type="button"
                  disabled={changing}
                  onClick={() => {
                    if (window.confirm(`Approve the skill "${s.name}" version ${s.version} without a run confirming it? Runs will be offered it as validated.`)) approve.mutate({ skillId: s.id });
                  }}
                  aria-label={`Approve skill ${s.name}`}
                >
                  Approve
                </button>
              ) : null}
              <button type="button" disabled={changing} onClick={() => (s.status === "disabled" ? enable : disable).mutate({ skillId: s.id })} aria-label={`${s.status === "disabled" ? "Enable" : "Disable"} skill ${s.name}`}>
                {s.status === "disabled" ? "Enable" : "Disable"}
              </button>
            </RowActions>
          ) : null}
        </tr>
      )}
    />
  );
}

function Shortcuts() {
  const trpc = useTRPC();
  const list = useInfiniteQuery(trpc.shortcut.list.infiniteQueryOptions({}, pages));
  return (
    <ListSection
      id="shortcuts"
      title="Shortcuts"
      lead="Deeplinks each app version declares. A run tries a new one on its phone: the planner is offered only validated ones; one failed try retires a shortcut."
      empty="No shortcuts yet: a run in an app finds them in the phone's package manager."
      columns={["Deeplink", "App", "Opens", "Status"]}
      list={list}
      row={(s) => (
        <tr key={s.id}>
          <td>
            <code>{s.uri}</code>
          </td>
          <td>
            {s.app} {s.appVersion}
          </td>
          <td>{s.activity}</td>
          <td>
            <strong>{s.status}</strong>: {s.statusText.summary}
            {s.statusText.whatToDo ? <span className={styles.whatToDo}>{s.statusText.whatToDo}</span> : null}
          </td>
        </tr>
      )}
    />
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
  return (
    <ListSection
      id="lessons"
      title="Lessons"
      lead="What a run learned about an app (at most three per run). The planner of a later run in the same app, on a similar goal, reads them."
      empty="No lessons yet: the summarizer writes them when a run ends."
      columns={["Lesson", "App", "From run", ...(canEdit ? ["Actions"] : [])]}
      list={list}
      error={update.error ?? remove.error}
      row={(l) => (
        <tr key={l.id} data-lesson-id={l.id}>
          <td>
            {editing === l.id ? (
              <EditInPlace pending={update.isPending} onCancel={() => setEditing(null)} onSave={(f) => update.mutate({ lessonId: l.id, text: String(f.get("text") ?? "") }, { onSuccess: () => setEditing(null) })}>
                <label>
                  Lesson
                  <textarea name="text" required minLength={3} maxLength={1000} defaultValue={l.text} />
                </label>
              </EditInPlace>
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
            <RowActions
              label={`lesson: ${l.text.slice(0, 40)}`}
              onEdit={() => setEditing(l.id)}
              deleting={remove.isPending}
              onDelete={() => {
                if (window.confirm("Delete this lesson? Later runs will no longer read it.")) remove.mutate({ lessonId: l.id });
              }}
            />
          ) : null}
        </tr>
      )}
    />
  );
}

type SkillSteps = NonNullable<RouterOutputs["skill"]["list"]["items"][number]["steps"]>;
type SkillScreen = SkillSteps["endsOn"];

const screenWords = (s: SkillScreen) => `${s.activity ?? s.app}${s.required.length ? ` with ${s.required.join(", ")}` : ""}`;

/** Each parameter as `{name}`, with the value the run it came from used ("{query} (in its run: red shoes)"). */
const parameterWords = (steps: SkillSteps) => steps.parameters.map((p) => (steps.example[p] !== undefined ? `{${p}} (in its run: ${steps.example[p]})` : `{${p}}`)).join(", ");

/** A step's before-contract in words: the app, the screen (activity) and the elements that must be on it. */
const contractWords = (s: SkillScreen) => [`app ${s.app}`, s.activity ? `screen ${s.activity}` : null, s.required.length ? `with ${s.required.join(", ")}` : null].filter(Boolean).join(", ");

/** One step: the screenshot of the screen it expects, from the run it came from, what it does and that screen in words. */
function SkillStepItem({ step }: { step: SkillSteps["steps"][number] }) {
  const { apiUrl } = useApi();
  return (
    <li className={styles.step}>
      <div className={styles.stepBody}>
        {step.shot ? (
          // A plain <img>: the blob URL is immutable and cached by the browser; nothing for an image optimiser to do.
          <img className={styles.thumb} src={blobUrl(apiUrl, step.shot)} alt={`Step ${step.number}, ${step.does}: the screen it expects, ${step.expects.activity ?? step.expects.app}`} loading="lazy" width={54} height={96} />
        ) : (
          <span className={styles.noThumb} aria-hidden="true" title="No screenshot: the run it came from kept none" />
        )}
        <span className={styles.stepText}>
          {step.does}{" "}
          <span className={styles.expects}>expects {contractWords(step.expects)}</span>
        </span>
      </div>
    </li>
  );
}

/** A skill's steps with the screen each expects, its end screen, and (read when opened) its versions and what changed between them. */
function SkillDetails({ skillId, name, steps }: { skillId: string; name: string; steps: SkillSteps | null }) {
  const [open, setOpen] = useState(false);
  const trpc = useTRPC();
  const versions = useQuery({ ...trpc.skill.versions.queryOptions({ skillId }), enabled: open });
  return (
    <details className={styles.details} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Steps and versions of {name}</summary>
      {steps ? (
        <ol className={styles.steps} aria-label={`Steps of ${name}`}>
          {steps.steps.map((st) => (
            <SkillStepItem key={st.number} step={st} />
          ))}
          <li className={styles.expects}>ends on {contractWords(steps.endsOn)}</li>
        </ol>
      ) : (
        <p>These steps were saved in a form this page cannot show.</p>
      )}
      {problem(versions.error)}
      {versions.data ? (
        <ul className={styles.versions} aria-label={`Versions of ${name}`}>
          {versions.data.map((v) => (
            <li key={v.version}>
              Version {v.version} from run <Link href={`/runs/${encodeURIComponent(v.runId)}`}>{v.runId}</Link>
              {v.changes === null ? (
                v.version === 1 ? " (first version)" : " (what changed before it was not kept)"
              ) : v.changes.every((c) => c.kind === "same") ? (
                ": the same steps"
              ) : (
                <ul>
                  {v.changes
                    .filter((c) => c.kind !== "same")
                    .map((c) => (
                      <li key={`${c.kind}-${c.number}`}>
                        {c.kind === "changed" ? `step ${c.number} changed: ${c.before.does} on ${screenWords(c.before.expects)} → ${c.after.does} on ${screenWords(c.after.expects)}` : null}
                        {c.kind === "added" ? `step ${c.number} added: ${c.step.does} on ${screenWords(c.step.expects)}` : null}
                        {c.kind === "removed" ? `step ${c.number} removed: ${c.step.does}` : null}
                      </li>
                    ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </details>
  );
}
