"use client";
// "Share": before a link is made the run is scanned and the person sees what it would reveal (keys, tokens, card
// numbers, phone numbers, e-mail addresses) and what the link masks (text typed into password fields, and those
// fields on screenshots). The link is shown once (only its hash is kept); the run's links are listed to revoke.
import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Share2 } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "../../lib/trpc.ts";
import styles from "../replay/replay.module.css";
import uiStyles from "../ui/ui.module.css";

const DAY = 24 * 60 * 60 * 1000;
const EXPIRY = [
  { label: "1 day", ms: DAY },
  { label: "7 days", ms: 7 * DAY },
  { label: "30 days", ms: 30 * DAY },
  { label: "Until revoked", ms: 0 },
] as const;

const KIND_LABEL: Record<string, string> = {
  key: "Key",
  token: "Token",
  card_number: "Card number",
  phone_number: "Phone number",
  email: "E-mail address",
  password: "Password",
};

export function ShareDialog({ runId }: { runId: string }) {
  const [open, setOpen] = useState(false);
  const [expiry, setExpiry] = useState<number>(7 * DAY);
  const [link, setLink] = useState<string | null>(null);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const scan = useQuery({ ...trpc.share.scan.queryOptions({ runId }), enabled: open, staleTime: 0 });
  const shares = useQuery({ ...trpc.share.list.queryOptions({ runId }), enabled: open });
  const refreshShares = () => queryClient.invalidateQueries(trpc.share.list.pathFilter());
  const create = useMutation(
    trpc.share.create.mutationOptions({
      onSuccess: async ({ token }) => {
        setLink(`${window.location.origin}/share/${encodeURIComponent(token)}`);
        await refreshShares();
      },
      onError: (e) => toast.error(`No link was made: ${e.message}`),
    }),
  );
  const revoke = useMutation(
    trpc.share.revoke.mutationOptions({
      onSuccess: async () => {
        toast.success("Link revoked: it now answers “not found”.");
        await refreshShares();
      },
      onError: (e) => toast.error(`The link was not revoked: ${e.message}`),
    }),
  );
  const findings = scan.data?.findings ?? [];
  const active = (shares.data?.items ?? []).filter((s) => !s.revokedAt && (!s.expiresAt || new Date(s.expiresAt) > new Date()));

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        if (!o) setLink(null);
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" className={uiStyles.button}>
          <Share2 size={14} aria-hidden /> Share
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className={uiStyles.overlay} />
        <Dialog.Content className={uiStyles.dialog} style={{ width: "min(560px, calc(100vw - 32px))" }} data-testid="share-dialog">
          <Dialog.Title>Share this run’s replay</Dialog.Title>
          <Dialog.Description className={uiStyles.dialogText}>
            Anyone with the link sees every step and screenshot, read-only, without an account, until it expires or you revoke it.
          </Dialog.Description>

          <section aria-labelledby="scan-title" data-testid="secret-scan">
            <h3 id="scan-title" style={{ fontSize: 14, margin: "0 0 4px" }}>
              What the run would reveal
            </h3>
            {scan.isLoading ? (
              <p className={styles.small}>Scanning the run for keys, tokens, card numbers, phone numbers and e-mail addresses…</p>
            ) : scan.error ? (
              <p role="alert">The scan failed: {scan.error.message}. Close this dialog and try again before sharing.</p>
            ) : findings.length === 0 ? (
              <p className={styles.small} data-testid="scan-clean">
                No keys, tokens, card numbers, phone numbers or e-mail addresses were found in what was typed, what the model wrote or the evidence.
              </p>
            ) : (
              <>
                <p className={styles.small}>
                  Found {findings.length}. Items marked “masked” are hidden on the link; the others are shown as recorded — do not share if they must stay private.
                </p>
                <ul className={styles.findings} data-testid="scan-findings">
                  {findings.map((f, i) => (
                    <li key={i} data-kind={f.kind}>
                      <strong>{KIND_LABEL[f.kind] ?? f.kind}</strong> <code>{f.excerpt}</code> — {f.where}
                      {f.masked ? <em> (masked)</em> : null}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {scan.data && (scan.data.maskedTexts > 0 || scan.data.maskedScreens > 0) ? (
              <p className={styles.small} data-testid="scan-masked">
                The link masks {scan.data.maskedTexts} text{scan.data.maskedTexts === 1 ? "" : "s"} typed into password fields, and boxes over password fields on {scan.data.maskedScreens} screenshot
                {scan.data.maskedScreens === 1 ? "" : "s"}.
              </p>
            ) : null}
          </section>

          {link ? (
            <div data-testid="share-link">
              <p className={styles.small}>Copy the link now: it is shown only once.</p>
              <div className={styles.link}>
                <input readOnly value={link} aria-label="Share link" onFocus={(e) => e.currentTarget.select()} />
                <button
                  type="button"
                  className={uiStyles.button}
                  onClick={() => {
                    void navigator.clipboard?.writeText(link).then(
                      () => toast.success("Link copied."),
                      () => toast.error("The browser did not allow copying; select the link and copy it yourself."),
                    );
                  }}
                >
                  Copy
                </button>
              </div>
            </div>
          ) : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                create.mutate({ runId, ...(expiry ? { expiresInMs: expiry } : {}) });
              }}
              className={uiStyles.field}
            >
              <label className={uiStyles.field}>
                Link expires after
                <select value={expiry} onChange={(e) => setExpiry(Number(e.target.value))}>
                  {EXPIRY.map((x) => (
                    <option key={x.label} value={x.ms}>
                      {x.label}
                    </option>
                  ))}
                </select>
              </label>
              <div className={uiStyles.actions}>
                <Dialog.Close asChild>
                  <button type="button" className={uiStyles.button}>
                    Cancel
                  </button>
                </Dialog.Close>
                <button type="submit" className={`${uiStyles.button} ${uiStyles.primary}`} disabled={!scan.data || create.isPending}>
                  {findings.length ? "Create the link anyway" : "Create the link"}
                </button>
              </div>
            </form>
          )}

          {active.length ? (
            <section aria-labelledby="links-title">
              <h3 id="links-title" style={{ fontSize: 14, margin: "0 0 4px" }}>
                Links to this run
              </h3>
              <ul className={styles.findings} data-testid="share-list">
                {active.map((s) => (
                  <li key={s.id}>
                    made {new Date(s.createdAt).toLocaleString("en-GB")} · {s.expiresAt ? `expires ${new Date(s.expiresAt).toLocaleString("en-GB")}` : "until revoked"}{" "}
                    <button type="button" className={`${uiStyles.button} ${uiStyles.danger}`} onClick={() => revoke.mutate({ shareId: s.id })} disabled={revoke.isPending}>
                      Revoke
                    </button>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
