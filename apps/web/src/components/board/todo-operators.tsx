"use client";
// What a person may do to one todo, as buttons: the board never moves a card by dragging, only through the core's
// operators (approve, deny or answer the gate, retry, block, cancel, reorder), each offered only in a state that
// allows it.
import * as Menu from "@radix-ui/react-dropdown-menu";
import { canTransitionTodo } from "@phoneloop/state/domain";
import { ArrowDown, ArrowUp, Ban, CircleStop, MessageCircleQuestion, MoreHorizontal, RotateCcw } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { toast } from "sonner";
import type { BoardCard } from "../../lib/labels.ts";
import { replanKey, useOperators } from "../../lib/operators.ts";
import { useSession } from "../../lib/session.tsx";
import { GateDecision } from "../gate/gate-decision.tsx";
import { ReasonDialog } from "../ui/reason-dialog.tsx";
import ui from "../ui/ui.module.css";
import styles from "./board.module.css";

export interface Neighbours {
  goalId: string;
  /** The todo before and after this one in the same lane (for reordering pending todos). */
  before?: string | undefined;
  after?: string | undefined;
}

export function TodoOperators({ card, neighbours }: { card: BoardCard; neighbours: Neighbours }) {
  const session = useSession();
  const ops = useOperators();
  const [dialog, setDialog] = useState<"block" | "cancel" | null>(null);
  const mayRun = session.may("run");
  const canBlock = mayRun && card.state === "pending" && canTransitionTodo(card.state, "block");
  const canCancel = mayRun && canTransitionTodo(card.state, "supersede");
  const canRetry = mayRun && canTransitionTodo(card.state, "reopen") && !card.openGate;
  const canReorder = mayRun && card.state === "pending";
  const gate = card.openGate && session.may("answer_gate") ? card.openGate : null;
  if (!gate && !canBlock && !canCancel && !canRetry && !canReorder) return null;

  const move = (other: string | undefined, label: string) => {
    if (!other) return;
    ops.replan.mutate(
      { goalId: neighbours.goalId, idempotencyKey: replanKey("reorder"), reason: `moved "${card.title}" ${label} from the board`, ops: [{ op: "reorder", todoIds: label === "up" ? [card.id, other] : [other, card.id] }] },
      { onSuccess: () => toast.success(`Moved "${card.title}" ${label}`) },
    );
  };

  return (
    <div className={styles.ops} data-field="operators">
      {gate ? (
        <>
          {gate.kind === "takeover" ? null : <GateDecision gateId={gate.id} question={gate.question} options={gate.options} kind={gate.kind} answerRoles={gate.answerRoles} compact />}
          <Link href={`/gates/${encodeURIComponent(gate.id)}`} className={ui.button} aria-label={gate.kind === "takeover" ? `Take over the phone for "${card.title}"` : `Open the gate of "${card.title}"`}>
            <MessageCircleQuestion size={14} aria-hidden /> {gate.kind === "takeover" ? "Take over" : "Open the gate"}
          </Link>
        </>
      ) : null}
      {canRetry ? (
        <button
          type="button"
          className={ui.button}
          disabled={ops.reopen.isPending}
          onClick={() => ops.reopen.mutate({ todoId: card.id, reason: "retried from the board" }, { onSuccess: () => toast.success(`"${card.title}" is back in Pending`) })}
        >
          <RotateCcw size={14} aria-hidden /> Retry
        </button>
      ) : null}
      {canReorder ? (
        <>
          <button type="button" className={ui.iconButton} aria-label={`Move "${card.title}" up`} disabled={!neighbours.before} onClick={() => move(neighbours.before, "up")}>
            <ArrowUp size={15} aria-hidden />
          </button>
          <button type="button" className={ui.iconButton} aria-label={`Move "${card.title}" down`} disabled={!neighbours.after} onClick={() => move(neighbours.after, "down")}>
            <ArrowDown size={15} aria-hidden />
          </button>
        </>
      ) : null}
      {canBlock || canCancel ? (
        <Menu.Root>
          <Menu.Trigger className={ui.iconButton} aria-label={`More actions for "${card.title}"`}>
            <MoreHorizontal size={16} aria-hidden />
          </Menu.Trigger>
          <Menu.Portal>
            <Menu.Content className={ui.menu} align="end" sideOffset={4}>
              {canBlock ? (
                <Menu.Item className={ui.menuItem} onSelect={() => setDialog("block")}>
                  <Ban size={14} aria-hidden /> Block…
                </Menu.Item>
              ) : null}
              {canCancel ? (
                <Menu.Item className={ui.menuItem} onSelect={() => setDialog("cancel")}>
                  <CircleStop size={14} aria-hidden /> Cancel…
                </Menu.Item>
              ) : null}
            </Menu.Content>
          </Menu.Portal>
        </Menu.Root>
      ) : null}
      <ReasonDialog
        open={dialog === "block"}
        onOpenChange={(o) => setDialog(o ? "block" : null)}
        title={`Block "${card.title}"`}
        description="No agent claims a blocked todo until someone retries it. Say what has to happen first."
        label="Why it is blocked"
        confirm="Block"
        onConfirm={(reason) => ops.block.mutateAsync({ todoId: card.id, reason }).then(() => toast.success(`"${card.title}" is blocked`))}
      />
      <ReasonDialog
        open={dialog === "cancel"}
        onOpenChange={(o) => setDialog(o ? "cancel" : null)}
        title={`Cancel "${card.title}"`}
        description="The todo is superseded: it stays in the history with your reason, and no agent works on it again."
        label="Why it is cancelled"
        confirm="Cancel the todo"
        danger
        onConfirm={(reason) =>
          ops.replan
            .mutateAsync({ goalId: neighbours.goalId, idempotencyKey: replanKey("cancel"), reason, ops: [{ op: "supersede", todoId: card.id, reason }] })
            .then(() => toast.success(`"${card.title}" is cancelled`))
        }
      />
    </div>
  );
}
