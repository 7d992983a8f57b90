"use client";
// The board's WIP limits: each phone holding todos with its count against the per-phone limit, and for admins the
// form that sets the workspace's limits per held lane and per phone (the lanes show their own count and limit).
// A limit is where claims wait; lowering one below the current count moves no card, the lane reads over its limit.
import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { LANE_LABEL, type Board } from "../../lib/labels.ts";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import ui from "../ui/ui.module.css";
import styles from "./board.module.css";

const LANES = ["claimed", "running", "validating"] as const;
type Limits = Board["wip"]["limits"];
export type LaneWip = Board["lanes"][number]["wip"];

/** "3 / 4" on a held lane's header when it has a limit, marked full or over; its title says it counts the workspace. */
export function LaneWipBadge({ state, wip }: { state: string; wip: LaneWip }) {
  if (!wip || wip.limit === null) return null;
  const mark = wip.over ? "over its limit" : wip.atLimit ? "at its limit" : null;
  const words = `${wip.count} ${state} across the workspace, WIP limit ${wip.limit}${mark ? ` — ${mark}; claims wait` : ""}`;
  return (
    <span className={`${styles.wip} ${wip.over ? styles.wipOver : wip.atLimit ? styles.wipAt : ""}`} data-testid={`wip-${state}`} title={words}>
      {wip.count} / {wip.limit}
      {mark ? ` ${wip.over ? "over" : "full"}` : ""}
    </span>
  );
}

export function WipBar({ board }: { board: Board }) {
  const session = useSession();
  const { agents, limits } = board.wip;
  const admin = session.may("admin");
  if (!agents.length && !admin) return null;
  return (
    <section className={styles.wipBar} aria-label="Work in progress per phone">
      <span className={styles.label}>Per phone</span>
      {agents.length ? (
        <ul className={styles.wipPhones}>
          {agents.map((a) => (
            <li key={a.agentId} className={`${styles.wip} ${a.limit !== null && a.count > a.limit ? styles.wipOver : a.atLimit ? styles.wipAt : ""}`} data-testid="wip-phone" title={a.agentId}>
              {a.name}: {a.count}
              {a.limit !== null ? ` / ${a.limit}` : ""} held
            </li>
          ))}
        </ul>
      ) : (
        <span className={styles.muted}>no phone holds a todo now{limits.perAgent !== null ? ` (at most ${limits.perAgent} each)` : ""}</span>
      )}
      {admin ? <WipLimitsDialog limits={limits} /> : null}
    </section>
  );
}

function WipLimitsDialog({ limits }: { limits: Limits }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { apiUrl } = useApi();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    ...trpc.wipLimits.set.mutationOptions(),
    onSuccess: () => {
      setError(null);
      setOpen(false);
      toast.success("WIP limits saved; claims from now on follow them");
      void queryClient.invalidateQueries(trpc.board.get.pathFilter());
      void queryClient.invalidateQueries(trpc.wipLimits.get.pathFilter());
    },
    onError: (e) => setError(describeProblem(e, apiUrl).message),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const value = (name: string) => {
      const v = String(f.get(name) ?? "").trim();
      return v === "" ? null : Number(v);
    };
    save.mutate({ claimed: value("claimed"), running: value("running"), validating: value("validating"), perAgent: value("perAgent") });
  };
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <button type="button" className={ui.button}>
          WIP limits
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className={ui.overlay} />
        <Dialog.Content className={ui.dialog}>
          <Dialog.Title>WIP limits of the workspace</Dialog.Title>
          <Dialog.Description className={ui.dialogText}>
            How many todos may be in each lane at once across every goal, and how many one phone may hold. A claim past a limit waits until work leaves the lane; a lowered limit moves no card. Leave a field empty for no limit.
          </Dialog.Description>
          <form onSubmit={submit} className={ui.field}>
            {LANES.map((lane) => (
              <label key={lane} className={ui.field}>
                {LANE_LABEL[lane]}
                <input name={lane} type="number" min={1} max={1000} step={1} defaultValue={limits[lane] ?? ""} placeholder="no limit" />
              </label>
            ))}
            <label className={ui.field}>
              Per phone
              <input name="perAgent" type="number" min={1} max={1000} step={1} defaultValue={limits.perAgent ?? ""} placeholder="no limit" />
            </label>
            {error ? (
              <p role="alert" className={styles.wipError}>
                {error}
              </p>
            ) : null}
            <div className={ui.actions}>
              <Dialog.Close asChild>
                <button type="button" className={ui.button}>
                  Keep as is
                </button>
              </Dialog.Close>
              <button type="submit" className={`${ui.button} ${ui.primary}`} disabled={save.isPending}>
                Save limits
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
