"use client";
// Take over and hand back: a member stops the run's agent at its next step boundary (run.takeOver — or takes the
// agent's own ask), and the live mirror becomes the phone, driven through this tab's own connection. Each action is
// recorded as the person's step with the screen before and after (POST /blobs, then run.recordPersonStep); text
// typed into a password field, or marked secret, leaves the tab masked. "Hand back" closes the takeover with an
// optional note, and the agent goes on from the screen as the person left it.
import { uploadBlob } from "@phoneloop/client";
import { MASKED_TEXT } from "@phoneloop/state/domain";
import { Hand, Undo2 } from "lucide-react";
import Link from "next/link";
import { useCallback, useRef, useState } from "react";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import { describePersonAction, perform, type PersonAction } from "../device/mirror-input.ts";
import { PhoneMirror, type MirrorControl } from "../device/phone-mirror.tsx";
import { problemOf, useConnectedPhone } from "../device/phone-store.tsx";
import ui from "../ui/ui.module.css";
import styles from "./runner.module.css";

/** How long the screen may take to settle after a person's action before its "after" screenshot is taken. */
const SETTLE_MS = 3000;

/** The action as recorded: a secret text is replaced by the mask here, so it never reaches the API. */
function wireOf(a: PersonAction) {
  if (a.type === "type") return { action: { type: "type" as const, text: a.secret ? MASKED_TEXT : a.text }, secret: a.secret };
  return { action: a, secret: false };
}

/** Take over takes the agent's open ask on the run (run.takeOver), or opens a takeover on the todo its agent holds. */
export function TakeoverPanel({ runId }: { runId: string }) {
  const { client, apiUrl } = useApi();
  const session = useSession();
  const phone = useConnectedPhone();
  const [gateId, setGateId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [starting, setStarting] = useState(false);
  const [done, setDone] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState("");
  const [handedBack, setHandedBack] = useState(false);
  const acting = useRef(false);

  const takeOver = async () => {
    setStarting(true);
    setError(null);
    try {
      const taken = await client.run.takeOver.mutate({ runId });
      setGateId(taken.gateId);
      setHandedBack(false);
      setDone([]);
    } catch (e) {
      setError(`Could not take over: ${describeProblem(e, apiUrl).message}`);
    } finally {
      setStarting(false);
    }
  };

  const act = useCallback(
    async (a: PersonAction) => {
      if (!phone || !gateId || acting.current) return;
      acting.current = true;
      setBusy(true);
      setError(null);
      const { device } = phone;
      let stage = "read the screen before it";
      try {
        const before = await device.screenshot();
        const beforeSha = await uploadBlob(client, { bytes: before.png, mime: "image/png" });
        stage = "carry it out on the phone";
        await perform(device, a);
        stage = "read the screen after it";
        const after = (await device.waitForStable({ timeoutMs: SETTLE_MS })).screenshot;
        const afterSha = await uploadBlob(client, { bytes: after.png, mime: "image/png" });
        stage = "record it";
        const wire = wireOf(a);
        await client.run.recordPersonStep.mutate({ runId, gateId, action: wire.action, screen: { width: before.width, height: before.height }, beforeSha256: beforeSha.sha256, afterSha256: afterSha.sha256, secret: wire.secret });
        setDone((d) => [...d, describePersonAction(a)]);
      } catch (e) {
        const what = describePersonAction(a);
        const reason = stage === "record it" ? describeProblem(e, apiUrl).message : `${problemOf(e).message} ${problemOf(e).fix}`;
        setError(`${what}: could not ${stage}. ${reason} Check the phone's screen, then try again.`);
      } finally {
        acting.current = false;
        setBusy(false);
      }
    },
    [phone, gateId, client, apiUrl, runId],
  );

  const handBack = async () => {
    if (!gateId) return;
    setBusy(true);
    setError(null);
    try {
      await client.run.handBack.mutate({ runId, gateId, ...(note.trim() ? { note: note.trim() } : {}) });
      setGateId(null);
      setHandedBack(true);
      setNote("");
    } catch (e) {
      setError(`Could not hand back: ${describeProblem(e, apiUrl).message} Try again; the agent waits until you do.`);
    } finally {
      setBusy(false);
    }
  };

  if (!session.may("operate")) return null;
  const control: MirrorControl = { act, busy };

  return (
    <section className={`${styles.panel} ${styles.takeover}`} aria-label="Take over the phone" data-testid="takeover" data-taken={gateId ? "1" : undefined}>
      <div className={styles.row}>
        <h2 className={styles.heading}>{gateId ? "You have the phone" : "Take over"}</h2>
        {!gateId ? (
          <button type="button" className={`${ui.button} ${ui.primary}`} disabled={!phone || starting} onClick={() => void takeOver()}>
            <Hand size={14} aria-hidden /> {starting ? "Taking over…" : "Take over"}
          </button>
        ) : null}
      </div>
      {!gateId && !phone ? (
        <p className={styles.note}>
          Taking over drives the phone from this tab: open this page in the tab that runs it, or <Link href="/devices">connect the phone on Devices</Link>.
        </p>
      ) : null}
      {!gateId && phone ? (
        <p className={styles.note}>
          The agent stops at its next step and waits; you operate {phone.info.model} here, then hand it back, with a note for the agent if you like.
        </p>
      ) : null}
      {handedBack ? (
        <p role="status" className={styles.note}>
          Handed back: the agent looks at the screen again and goes on.
        </p>
      ) : null}
      {error ? (
        <p role="alert" className={styles.error}>
          {error}
        </p>
      ) : null}
      {gateId && phone ? (
        <>
          <PhoneMirror device={phone.device} info={phone.info} control={control} />
          {done.length ? (
            <div>
              <h3 className={styles.subheading}>What you did</h3>
              <ol className={styles.personSteps} data-testid="takeover-steps">
                {done.map((d, i) => (
                  <li key={i}>{d}</li>
                ))}
              </ol>
            </div>
          ) : null}
          <form
            className={styles.row}
            onSubmit={(e) => {
              e.preventDefault();
              void handBack();
            }}
          >
            <label className={styles.noteField}>
              Note for the agent (optional)
              <input type="text" value={note} onChange={(e) => setNote(e.target.value)} maxLength={500} placeholder="e.g. signed in as the shop's test account" />
            </label>
            <button type="submit" className={`${ui.button} ${ui.primary}`} disabled={busy}>
              <Undo2 size={14} aria-hidden /> Hand back
            </button>
          </form>
        </>
      ) : null}
    </section>
  );
}
