"use client";
// The workspace's people-and-credentials page: agent tokens (an operator issues and revokes their own; an admin
// sees and revokes all, with last use) and invite links (admin, one per person, with the role they get). The model
// settings have their own page (/settings/models).
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ROLES, TAB_TOKEN_IDLE_MS, type Role } from "@phoneloop/state/domain";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import styles from "./account.module.css";

export function TeamAdmin() {
  const session = useSession();
  if (session.status !== "signed-in") return null;
  const admin = session.may("admin");
  return (
    <>
      {session.may("operate") ? <AgentTokens all={admin} /> : null}
      {admin ? (
        <>
          <Invites />
          <p className={styles.lead}>
            The models runs call are on the <Link href="/settings/models">Models</Link> page; who must approve what, on the <Link href="/settings/approval-rules">Approval rules</Link> page.
          </p>
        </>
      ) : (
        <p className={styles.lead}>
          An admin of {session.person.workspaceName} manages invites, the <Link href="/settings/models">models</Link> and the approval rules.
        </p>
      )}
    </>
  );
}

function AgentTokens({ all }: { all: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pages = { getNextPageParam: (page: { nextCursor: string | null }) => page.nextCursor };
  const list = useInfiniteQuery(all ? trpc.agentToken.listAll.infiniteQueryOptions({}, pages) : trpc.agentToken.list.infiniteQueryOptions({}, pages));
  const [issued, setIssued] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries((all ? trpc.agentToken.listAll : trpc.agentToken.list).pathFilter());
  const issue = useMutation(
    trpc.agentToken.issue.mutationOptions({
      onSuccess: async (r) => {
        setIssued(r.token);
        await refresh();
      },
    }),
  );
  const revoke = useMutation((all ? trpc.agentToken.revokeAny : trpc.agentToken.revoke).mutationOptions({ onSuccess: () => refresh() }));
  const when = (d: Date | string | null) => (d ? new Date(d).toLocaleString() : "never");
  return (
    <section className={styles.card} aria-labelledby="tokens-heading">
      <h1 id="tokens-heading">Agent tokens</h1>
      <p className={styles.lead}>
        A headless agent acts with one: give it as PHONELOOP_AGENT_TOKEN (or in a file for --agent-token-file); it lasts until revoked. A browser tab that runs gets
        its own, which expires after {TAB_TOKEN_IDLE_MS / 3_600_000} hours unused. A token may do no more than the member who issued it may now, and ends
        when they are removed from the team.
      </p>
      <form
        className={styles.form}
        onSubmit={(e) => {
          e.preventDefault();
          const name = String(new FormData(e.currentTarget).get("name") ?? "").trim();
          if (name) issue.mutate({ name });
        }}
      >
        <label>
          Name (which worker it is for)
          <input name="name" required placeholder="lab worker 1" />
        </label>
        <button type="submit" disabled={issue.isPending}>
          Issue a token
        </button>
        {issued ? (
          <label>
            The token (shown once)
            <input readOnly value={issued} onFocus={(e) => e.currentTarget.select()} />
          </label>
        ) : null}
      </form>
      <ul aria-label="Agent tokens" style={{ listStyle: "none", padding: 0, margin: "16px 0 0", fontSize: 14 }}>
        {(list.data?.pages.flatMap((p) => p.items) ?? []).map((t) => (
          <li key={t.id} data-token-id={t.id} style={{ padding: "6px 0", borderTop: "1px solid var(--line)" }}>
            <strong>{t.name}</strong> · {t.agentId ?? "not registered yet"} · made {when(t.createdAt)} · last used {when(t.lastUsedAt)}
            {t.revokedAt ? (
              <> · revoked {when(t.revokedAt)}{t.revokedReason === "issuer_removed" ? " when the member who issued it was removed" : ""}</>
            ) : t.expiresAt && new Date(t.expiresAt) <= new Date() ? (
              <> · expired {when(t.expiresAt)} after going unused</>
            ) : (
              <>
                {t.expiresAt ? <> · expires {when(t.expiresAt)} unless used</> : null}
                <button type="button" style={{ marginLeft: 8 }} disabled={revoke.isPending} onClick={() => revoke.mutate({ tokenId: t.id })}>
                  Revoke
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      {list.hasNextPage ? (
        <button type="button" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
          Show more tokens
        </button>
      ) : null}
    </section>
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
