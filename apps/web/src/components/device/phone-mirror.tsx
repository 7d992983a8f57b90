"use client";
// The phone's screen, live: screenshots back to back, as fast as the link allows, with the frame rate shown.
// (scrcpy would stream video, but it needs its server jar pushed to the phone, which PhoneLoop does not ship.)
// With `control` (a person took over the run) the mirror is the phone: a click taps, a drag swipes, a press held
// long presses, and the controls below type, go Back and Home, or tap an element picked from a list (the keyboard's
// way); each action goes to `control.act`, which carries it out on this tab's connection and records it.
import type { Device, DeviceInfo } from "@phoneloop/device";
import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";
import { MirrorControls } from "./mirror-controls.tsx";
import { gestureOf, toDevicePoint, type DevicePoint, type PersonAction } from "./mirror-input.ts";
import { problemOf } from "./phone-store.tsx";
import styles from "./device.module.css";

interface Frame {
  url: string;
  width: number;
  height: number;
}

/** The person operating the phone through the mirror: each action is carried out and recorded by `act`. */
export interface MirrorControl {
  act(action: PersonAction): Promise<void>;
  /** An action is being carried out: the next waits for it. */
  busy: boolean;
}

export function PhoneMirror({ device, info, control }: { device: Device; info: DeviceInfo; control?: MirrorControl }) {
  const [frame, setFrame] = useState<Frame | null>(null);
  const down = useRef<{ client: DevicePoint; device: DevicePoint; at: number; id: number } | null>(null);
  const [fps, setFps] = useState<number | null>(null);
  const [paused, setPaused] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (paused) return;
    let stopped = false;
    let last: string | null = null;
    const times: number[] = [];
    void (async () => {
      while (!stopped) {
        try {
          const shot = await device.screenshot();
          if (stopped) break;
          const url = URL.createObjectURL(new Blob([shot.png as Uint8Array<ArrayBuffer>], { type: "image/png" }));
          setFrame({ url, width: shot.width, height: shot.height });
          if (last) URL.revokeObjectURL(last);
          last = url;
          const now = performance.now();
          times.push(now);
          while (times.length > 0 && now - times[0]! > 3000) times.shift();
          if (times.length > 1) setFps(((times.length - 1) * 1000) / (now - times[0]!));
          setError(null);
        } catch (e) {
          if (stopped) break;
          const p = problemOf(e);
          setError(`${p.message} ${p.fix}`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })();
    return () => {
      stopped = true;
      if (last) URL.revokeObjectURL(last);
    };
  }, [device, paused]);

  const pointAt = (e: ReactPointerEvent<HTMLImageElement>): DevicePoint | null =>
    frame ? toDevicePoint(e.clientX, e.clientY, e.currentTarget.getBoundingClientRect(), { width: frame.width, height: frame.height }) : null;
  const onPointerDown = (e: ReactPointerEvent<HTMLImageElement>) => {
    if (!control || control.busy || (e.pointerType === "mouse" && e.button !== 0)) return;
    const p = pointAt(e);
    if (!p) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    down.current = { client: { x: e.clientX, y: e.clientY }, device: p, at: e.timeStamp, id: e.pointerId };
  };
  const onPointerUp = (e: ReactPointerEvent<HTMLImageElement>) => {
    const d = down.current;
    if (!control || !d || d.id !== e.pointerId) return;
    down.current = null;
    const box = e.currentTarget.getBoundingClientRect();
    // A drag that ends off the picture ends at its nearest edge.
    const x = Math.min(box.right - 1, Math.max(box.left, e.clientX));
    const y = Math.min(box.bottom - 1, Math.max(box.top, e.clientY));
    const p = frame ? toDevicePoint(x, y, box, frame) : null;
    if (!p) return;
    void control.act(gestureOf({ down: d, up: { client: { x: e.clientX, y: e.clientY }, device: p, at: e.timeStamp } }));
  };

  return (
    <section className={styles.mirror} aria-label={control ? "The phone, in your hands" : "Live screen"} data-controlled={control ? "1" : undefined}>
      <div className={styles.mirrorHead}>
        <h2>Live screen</h2>
        <span className={styles.fps} data-testid="mirror-fps">
          {paused ? "paused" : fps === null ? "first frame…" : `${fps.toFixed(1)} frames/s`}
        </span>
        <button type="button" className={styles.linkButton} onClick={() => setPaused((p) => !p)} aria-pressed={paused}>
          {paused ? "Resume mirror" : "Pause mirror"}
        </button>
      </div>
      <p className={styles.note}>
        Screenshots as fast as the connection allows. Video (scrcpy) is unavailable: its server jar is not on the phone.
      </p>
      {error ? (
        <p role="alert" className={styles.problem}>
          {error}
        </p>
      ) : null}
      {control ? (
        <p className={styles.note}>Click to tap, drag to swipe, press and hold to long press — or use the controls below.</p>
      ) : null}
      {frame ? (
        <img
          className={`${styles.screen} ${control ? styles.screenControlled : ""}`}
          src={frame.url}
          width={frame.width}
          height={frame.height}
          alt={control ? `Screen of ${info.model}, live: click to tap it` : `Screen of ${info.model}, live`}
          data-testid="mirror-frame"
          draggable={false}
          {...(control ? { onPointerDown, onPointerUp, onPointerCancel: () => (down.current = null), onContextMenu: (e: { preventDefault(): void }) => e.preventDefault() } : {})}
        />
      ) : (
        <div className={styles.screenPlaceholder} style={{ aspectRatio: `${info.screen.width} / ${info.screen.height}` }}>
          Waiting for the first frame…
        </div>
      )}
      {control ? <MirrorControls device={device} control={control} /> : null}
    </section>
  );
}
