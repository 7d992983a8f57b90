"use client";
// The controls under a mirror a person operates: Back, Home, a text box that types into the focused field (secret —
// shown as dots and masked in the record — when the phone's focused field is a password field or the person says
// so), and a list of the screen's elements to tap from the keyboard. The UI tree is read again after each action.
import type { Device, UiNode } from "@phoneloop/device";
import { useEffect, useMemo, useState } from "react";
import ui from "../ui/ui.module.css";
import { focusedIsPassword, tapTargets, type PersonAction } from "./mirror-input.ts";
import type { MirrorControl } from "./phone-mirror.tsx";
import styles from "./device.module.css";

export function MirrorControls({ device, control }: { device: Device; control: MirrorControl }) {
  const [tree, setTree] = useState<UiNode | null>(null);
  const [text, setText] = useState("");
  const [secretChosen, setSecretChosen] = useState(false);
  const [target, setTarget] = useState("");
  const { busy } = control;

  // The screen's elements after each action (and at the start): which field has focus, what can be tapped.
  useEffect(() => {
    if (busy) return;
    let stale = false;
    device.uiTree().then(
      (t) => !stale && setTree(t),
      () => !stale && setTree(null),
    );
    return () => {
      stale = true;
    };
  }, [device, busy]);

  useEffect(() => setTarget(""), [tree]);

  const passwordField = focusedIsPassword(tree);
  const secret = secretChosen || passwordField;
  const targets = useMemo(() => tapTargets(tree), [tree]);
  const act = (a: PersonAction) => void control.act(a);

  return (
    <div className={styles.controls} data-testid="mirror-controls">
      <div className={styles.controlsRow} role="group" aria-label="Phone buttons">
        <button type="button" className={ui.button} disabled={busy} onClick={() => act({ type: "back" })}>
          Back
        </button>
        <button type="button" className={ui.button} disabled={busy} onClick={() => act({ type: "home" })}>
          Home
        </button>
      </div>
      <form
        className={styles.controlsRow}
        onSubmit={(e) => {
          e.preventDefault();
          if (!text || busy) return;
          act({ type: "type", text, secret });
          setText("");
        }}
      >
        <label>
          {passwordField ? "Type into the password field (kept secret)" : "Type into the focused field"}
          <input type={secret ? "password" : "text"} value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" spellCheck={false} data-testid="mirror-text" />
        </label>
        <label className={styles.check}>
          <input type="checkbox" checked={secret} disabled={passwordField} onChange={(e) => setSecretChosen(e.target.checked)} />
          This is secret (recorded masked)
        </label>
        <button type="submit" className={ui.button} disabled={busy || !text}>
          Type it
        </button>
      </form>
      {targets.length ? (
        <form
          className={styles.controlsRow}
          onSubmit={(e) => {
            e.preventDefault();
            const t = targets[Number(target)];
            if (t && !busy) act({ type: "tap", x: t.x, y: t.y });
          }}
        >
          <label>
            Element on the screen
            <select value={target} onChange={(e) => setTarget(e.target.value)}>
              <option value="">Pick one to tap…</option>
              {targets.map((t, i) => (
                <option key={`${i}-${t.x}-${t.y}`} value={i}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className={ui.button} disabled={busy || target === ""}>
            Tap it
          </button>
        </form>
      ) : null}
    </div>
  );
}
