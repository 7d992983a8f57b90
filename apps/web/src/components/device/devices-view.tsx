"use client";
// /devices: connect a phone (WebUSB picker, a phone granted before, or the demo phone), see its card and its screen.
import { Smartphone, Usb, Unplug } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { describeProblem, useApi } from "../../lib/api.tsx";
import ui from "../ui/ui.module.css";
import { PhoneMirror } from "./phone-mirror.tsx";
import { describeProgress, usePhone, type PhoneProblem } from "./phone-store.tsx";
import { PhoneCard } from "./phone-card.tsx";
import { PhoneGoals } from "./phone-goals.tsx";
import { CurrentRun } from "../runner/current-run.tsx";
import { WorkerToggle } from "../runner/worker-toggle.tsx";
import styles from "./device.module.css";

export function DevicesView() {
  const phone = usePhone();
  const { client, apiUrl } = useApi();
  const { state } = phone;
  const busy = state.status === "connecting";
  const [demoNote, setDemoNote] = useState<string | null>(null);
  /** The click on "Use the demo phone" is the person's consent: the API answers the phone's prompt (it holds the token). */
  const answer = useRef(false);
  const waitingDemo = state.status === "connecting" && state.connection === "demo" && state.progress?.kind === "waiting_for_authorization";
  useEffect(() => {
    if (!waitingDemo || !answer.current) return;
    answer.current = false;
    client.demoPhone.allowBrowser.mutate({ keyName: phone.demoKeyName() ?? "" }).then(
      (r) => setDemoNote(r.allowed ? null : r.reason),
      (e: unknown) => setDemoNote(describeProblem(e, apiUrl).message),
    );
  }, [waitingDemo, client, apiUrl, phone]);
  return (
    <div className={styles.page}>
      <header>
        <h1>Devices</h1>
        <p className={styles.lead}>
          Connect an Android phone with USB debugging on; this tab then runs goals on it. The phone stays connected while this tab is open.
        </p>
      </header>

      <section className={styles.connect} aria-label="Connect a phone">
        <button type="button" className={`${ui.button} ${ui.primary}`} disabled={busy} onClick={() => void phone.connectUsb()}>
          <Usb size={14} aria-hidden /> {state.status === "failed" && state.connection === "usb" ? "Retry" : "Connect phone"}
        </button>
        {phone.granted.map((g) => (
          <button key={g.serial} type="button" className={ui.button} disabled={busy} onClick={() => void phone.connectUsb(g.serial)}>
            <Usb size={14} aria-hidden /> Reconnect {g.name}
          </button>
        ))}
        {phone.demoPhoneUrl ? (
          <button
            type="button"
            className={ui.button}
            disabled={busy}
            onClick={() => {
              answer.current = true;
              setDemoNote(null);
              void phone.connectDemo();
            }}
          >
            <Smartphone size={14} aria-hidden /> Use the demo phone
          </button>
        ) : null}
        {state.status === "connected" ? (
          <button type="button" className={`${ui.button} ${ui.danger}`} onClick={() => void phone.disconnect()}>
            <Unplug size={14} aria-hidden /> Disconnect
          </button>
        ) : null}
      </section>

      <p role="status" className={styles.status} data-kind={state.status}>
        {state.status === "connecting"
          ? describeProgress(state.progress, state.connection)
          : state.status === "connected"
            ? `Connected to ${state.info.model} (${state.info.serial})`
            : state.status === "failed"
              ? "Not connected"
              : "No phone connected"}
      </p>
      {demoNote && state.status === "connecting" ? <p className={styles.note}>{demoNote}</p> : null}
      {state.status === "failed" ? <ProblemNotice problem={state.problem} /> : null}
      {!phone.webUsb && state.status !== "connected" ? (
        <p className={styles.note}>
          This browser has no WebUSB, so only the demo phone can be used here: open PhoneLoop in Chrome, Edge or another Chromium-based browser to connect a USB phone.
        </p>
      ) : null}

      {state.status === "connected" ? (
        <div className={styles.connected}>
          <div className={styles.side}>
            <PhoneCard info={state.info} connection={state.connection} />
            <WorkerToggle />
            <CurrentRun />
            <PhoneGoals />
          </div>
          <PhoneMirror device={state.device} info={state.info} />
        </div>
      ) : state.status !== "connecting" ? (
        <section className={styles.help} aria-label="Before you connect">
          <h2>Before you connect</h2>
          <ol>
            <li>On the phone, turn on Developer options (tap Build number seven times) and USB debugging.</li>
            <li>Plug it in with a data cable and unlock it.</li>
            <li>Click Connect phone, pick it in the browser&apos;s list, then tap &quot;Allow&quot; on &quot;Allow USB debugging?&quot; on the phone.</li>
          </ol>
        </section>
      ) : null}
    </div>
  );
}

/** A connection failure: what happened and what to do, with its code. */
export function ProblemNotice({ problem }: { problem: PhoneProblem }) {
  return (
    <div role="alert" className={styles.problem} data-code={problem.code}>
      <p>
        <strong>{problem.message}</strong>
      </p>
      <p>{problem.fix}</p>
    </div>
  );
}
