"use client";
// A dialog that asks for the one line an operator records (why a todo is blocked, cancelled, a gate answered).
import * as Dialog from "@radix-ui/react-dialog";
import { useState, type ReactNode } from "react";
import styles from "./ui.module.css";

export interface ReasonDialogProps {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: string;
  description: ReactNode;
  label: string;
  confirm: string;
  /** Resolves when the change is recorded; rejects to keep the dialog open (the error is shown by the caller). */
  onConfirm(text: string, first: string): Promise<unknown>;
  danger?: boolean;
  /** The text field must not be empty (the core requires a reason). */
  required?: boolean;
  /** A second text asked before the reason (a gate's answer in words); passed to onConfirm as `first`. */
  firstLabel?: string;
}

export function ReasonDialog(props: ReasonDialogProps) {
  const [text, setText] = useState("");
  const [first, setFirst] = useState("");
  const firstMissing = props.firstLabel !== undefined && !first.trim();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    if ((props.required !== false && !text.trim()) || firstMissing) return;
    setBusy(true);
    try {
      await props.onConfirm(text.trim(), first.trim());
      setText("");
      setFirst("");
      props.onOpenChange(false);
    } catch {
      // The caller's toast says what went wrong; the dialog stays so the person can try again.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className={styles.overlay} />
        {/* Only "Keep as is" or Escape closes it: a click or focus elsewhere (a toast, a live update) never throws
            away what the person typed. */}
        <Dialog.Content className={styles.dialog} onInteractOutside={(e) => e.preventDefault()}>
          <Dialog.Title>{props.title}</Dialog.Title>
          <Dialog.Description className={styles.dialogText}>{props.description}</Dialog.Description>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
            className={styles.field}
          >
            {props.firstLabel !== undefined ? (
              <label className={styles.field}>
                {props.firstLabel}
                <textarea value={first} onChange={(e) => setFirst(e.target.value)} rows={2} required autoFocus />
              </label>
            ) : null}
            <label className={styles.field}>
              {props.label}
              <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} required={props.required !== false} autoFocus={props.firstLabel === undefined} />
            </label>
            <div className={styles.actions}>
              <Dialog.Close asChild>
                <button type="button" className={styles.button}>
                  Keep as is
                </button>
              </Dialog.Close>
              <button type="submit" className={`${styles.button} ${props.danger ? styles.danger : styles.primary}`} disabled={busy || firstMissing || (props.required !== false && !text.trim())}>
                {props.confirm}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
