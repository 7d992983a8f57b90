"use client";
import type { DeviceInfo } from "@phoneloop/device";
import type { PhoneConnection } from "./phone-store.tsx";
import styles from "./device.module.css";

/** Model, Android version, battery, screen size and how it is connected. */
export function PhoneCard({ info, connection }: { info: DeviceInfo; connection: PhoneConnection }) {
  return (
    <section className={styles.card} aria-label="Connected phone" data-testid="phone-card">
      <h2>
        {info.manufacturer && !info.model.toLowerCase().startsWith(info.manufacturer.toLowerCase()) ? `${info.manufacturer} ` : ""}
        {info.model}
      </h2>
      <dl className={styles.facts}>
        <dt>Android</dt>
        <dd>
          {info.androidVersion} (SDK {info.sdk})
        </dd>
        <dt>Battery</dt>
        <dd>{info.battery ? `${info.battery.level}%${info.battery.charging ? ", charging" : ""}` : "unknown"}</dd>
        <dt>Screen</dt>
        <dd>
          {info.screen.width} × {info.screen.height} px, {info.screen.density} dpi
        </dd>
        <dt>Connection</dt>
        <dd>{connection === "usb" ? "USB (WebUSB)" : "Demo phone (WebSocket)"}</dd>
        <dt>Serial</dt>
        <dd>
          <code>{info.serial}</code>
        </dd>
      </dl>
    </section>
  );
}
