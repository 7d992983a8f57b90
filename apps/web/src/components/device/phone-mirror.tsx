"use client";
// The phone's screen, live: screenshots back to back, as fast as the link allows, with the frame rate shown.
// (scrcpy would stream video, but it needs its server jar pushed to the phone, which PhoneLoop does not ship.)
import type { Device, DeviceInfo } from "@phoneloop/device";
import { useEffect, useState } from "react";
import { problemOf } from "./phone-store.tsx";
import styles from "./device.module.css";

interface Frame {
  url: string;
  width: number;
  height: number;
}

export function PhoneMirror({ device, info }: { device: Device; info: DeviceInfo }) {
  const [frame, setFrame] = useState<Frame | null>(null);
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

  return (
    <section className={styles.mirror} aria-label="Live screen">
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
      {frame ? (
        <img className={styles.screen} src={frame.url} width={frame.width} height={frame.height} alt={`Screen of ${info.model}, live`} data-testid="mirror-frame" />
      ) : (
        <div className={styles.screenPlaceholder} style={{ aspectRatio: `${info.screen.width} / ${info.screen.height}` }}>
          Waiting for the first frame…
        </div>
      )}
    </section>
  );
}
