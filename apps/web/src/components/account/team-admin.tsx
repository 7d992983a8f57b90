"use client";
// The admin's corner of the workspace: invite links (one per person, with the role they get) and the model
// settings the model proxy uses. The model key is write-only here: the API answers only whether one is set.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ROLES, type Role } from "@phoneloop/state/domain";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import styles from "./account.module.css";

export function TeamAdmin() {
  const session = useSession();
  if (session.status !== "signed-in") return null;
  if (!session.may("admin")) return <p className={styles.lead}>Only an admin of {session.person.workspaceName} manages invites and model settings.</p>;
  return (
    <>
      <Invites />
      <ModelSettings />
    </>
  );
}

function Invites() {
  const trpc = useTRPC();
  const [role, setRole] = useState<Role>("operator");
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation(trpc.invite.create.mutationOptions({ onSuccess: (r) => setLink(`${window.location.origin}${r.path}`) }));
  return (
    <section className={styles.card} aria-labelledby="invite-heading">
      <h1 id="invite-heading">Invite someone</h1>
      <p className={styles.lead}>The link works once, for 7 days. Send it to one person; they choose their own password.</p>
      <form
        className={styles.form}
        onSubmit={(e) => {
          e.preventDefault();
          invite.mutate({ role });
        }}
      >
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={invite.isPending}>
          Make an invite link
        </button>
        {invite.error ? (
          <p className={styles.error} role="alert">
            {invite.error.message}
          </p>
        ) : null}
        {link ? (
          <label>
            Invite link
            <input readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
          </label>
        ) : null}
      </form>
    </section>
  );
}

function ModelSettings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.modelSettings.get.queryOptions({}));
  const [saved, setSaved] = useState(false);
  const save = useMutation(
    trpc.modelSettings.set.mutationOptions({
      onSuccess: async () => {
        setSaved(true);
        await queryClient.invalidateQueries({ queryKey: trpc.modelSettings.get.queryKey() });
      },
    }),
  );
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setSaved(false);
    const f = new FormData(e.currentTarget);
    const text = (name: string) => String(f.get(name) ?? "").trim();
    const models = Object.fromEntries((["planner", "executor", "summarizer"] as const).flatMap((r) => (text(r) ? [[r, text(r)]] : [])));
    save.mutate({ baseUrl: text("baseUrl"), ...(text("apiKey") ? { apiKey: text("apiKey") } : {}), models });
  };
  if (current.isPending) return null;
  const s = current.data;
  return (
    <section className={styles.card} aria-labelledby="models-heading">
      <h1 id="models-heading">Model settings</h1>
      <p className={styles.lead}>Runs in a tab call models through the API with these; the key never reaches a browser.</p>
      <form className={styles.form} onSubmit={onSubmit} key={s?.updatedAt ? String(s.updatedAt) : "new"}>
        <label>
          Endpoint (OpenAI-compatible)
          <input name="baseUrl" type="url" required defaultValue={s?.baseUrl ?? ""} placeholder="https://api.example.com/v1" />
        </label>
        <label>
          API key {s?.hasApiKey ? "(set; leave empty to keep it)" : ""}
          <input name="apiKey" type="password" autoComplete="off" />
        </label>
        {(["planner", "executor", "summarizer"] as const).map((r) => (
          <label key={r}>
            {r} model
            <input name={r} defaultValue={s?.models[r] ?? ""} />
          </label>
        ))}
        <button type="submit" disabled={save.isPending}>
          Save
        </button>
        {save.error ? (
          <p className={styles.error} role="alert">
            {save.error.message}
          </p>
        ) : null}
        {saved ? <p role="status">Saved.</p> : null}
      </form>
    </section>
  );
}
