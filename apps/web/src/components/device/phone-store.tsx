"use client";
// The tab's one connected phone (React context): the devices page connects it — a phone over WebUSB (the browser's
// picker, or one granted before, which reconnects without a prompt) or the demo phone over WebSocket — and the
// runner drives it. A phone is held by one tab at a time; a second connection is refused by the phone itself.
// Only types, the errors and the WebUSB check load with every page; the ADB stack (@phoneloop/device) loads when a
// phone is connected or looked up, so a page that shows no phone does not wait for it.
import type { AdbDevice, ConnectStatus, Device, DeviceInfo } from "@phoneloop/device";
import { isDeviceError } from "@phoneloop/device/errors";
import { isWebUsbSupported } from "@phoneloop/device/webusb-support";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

export type PhoneConnection = "usb" | "demo";

/** A failure as the user reads it: what happened, what to do, and its code (for tests and support). */
export interface PhoneProblem {
  code: string;
  message: string;
  fix: string;
}

export type PhoneState =
  | { status: "idle" }
  | { status: "connecting"; connection: PhoneConnection; progress: ConnectStatus | null }
  | { status: "connected"; connection: PhoneConnection; device: Device; info: DeviceInfo }
  | { status: "failed"; connection: PhoneConnection; problem: PhoneProblem };

export interface GrantedPhone {
  serial: string;
  name: string;
}

export interface PhoneStore {
  state: PhoneState;
  /** WebUSB exists in this browser (false before the page has run in the browser). */
  webUsb: boolean;
  /** Phones this site was granted before: they connect without the picker. */
  granted: GrantedPhone[];
  /** The demo phone's ADB WebSocket, when this installation runs one. */
  demoPhoneUrl: string | null;
  /** Opens the browser's picker (or takes the granted phone `serial`) and connects. Needs a click. */
  connectUsb(serial?: string): Promise<void>;
  connectDemo(): Promise<void>;
  /**
   * The name this tab gave its ADB key for the demo phone, with a random tag of its own: the API allows only a
   * waiting key of this name (demoPhone.allowBrowser), so no other workspace's tab can be allowed by this one's click.
   */
  demoKeyName(): string | null;
  disconnect(): Promise<void>;
  /** The phone connected right now, read at call time (a caller that just awaited connect… sees it before a render). */
  connected(): { device: Device; info: DeviceInfo; connection: PhoneConnection } | null;
}

const PhoneContext = createContext<PhoneStore | null>(null);

/** How long the phone may take to show and get an answer to "Allow USB debugging?". */
const AUTHORIZATION_TIMEOUT_MS = 60_000;

export function problemOf(e: unknown): PhoneProblem {
  if (isDeviceError(e)) return { code: e.code, message: e.message.slice(0, e.message.length - e.fix.length).trim(), fix: e.fix };
  const message = e instanceof Error ? e.message : String(e);
  return { code: "CONNECTION_FAILED", message: `Could not connect to the phone: ${message}`, fix: "Unplug and replug the phone, unlock it, and click Connect again." };
}

/** 128 random bits as base64url (22 characters): the tag of the demo key's name. */
function randomTag(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function PhoneProvider({ demoPhoneUrl, children }: { demoPhoneUrl?: string | undefined; children: ReactNode }) {
  const [state, setState] = useState<PhoneState>({ status: "idle" });
  const [webUsb, setWebUsb] = useState(false);
  const [granted, setGranted] = useState<GrantedPhone[]>([]);
  const current = useRef<Device | null>(null);
  const currentPhone = useRef<{ device: Device; info: DeviceInfo; connection: PhoneConnection } | null>(null);
  /** The attempt that may still change the state; an older one finishing late changes nothing. */
  const attempt = useRef(0);
  const demoKeyName = useRef<string | null>(null);

  const refreshGranted = useCallback(async () => {
    if (!isWebUsbSupported()) return;
    try {
      const { listGrantedPhones } = await import("@phoneloop/device");
      setGranted((await listGrantedPhones()).map((d) => ({ serial: d.serial, name: d.name || d.serial })));
    } catch {
      setGranted([]);
    }
  }, []);

  useEffect(() => {
    setWebUsb(isWebUsbSupported());
    void refreshGranted();
  }, [refreshGranted]);

  const connectWith = useCallback(async (connection: PhoneConnection, open: (onStatus: (s: ConnectStatus) => void) => Promise<AdbDevice>) => {
    const mine = ++attempt.current;
    const previous = current.current;
    current.current = null;
    currentPhone.current = null;
    await previous?.close().catch(() => undefined);
    setState({ status: "connecting", connection, progress: null });
    try {
      const device = await open((progress) => mine === attempt.current && setState({ status: "connecting", connection, progress }));
      if (mine !== attempt.current) {
        await device.close().catch(() => undefined);
        return;
      }
      const info = await device.info();
      current.current = device;
      currentPhone.current = { device, info, connection };
      device.onDisconnect((e) => {
        if (current.current !== device) return;
        current.current = null;
        currentPhone.current = null;
        setState({ status: "failed", connection, problem: problemOf(e) });
      });
      setState({ status: "connected", connection, device, info });
    } catch (e) {
      if (mine === attempt.current) setState({ status: "failed", connection, problem: problemOf(e) });
    }
  }, []);

  const store = useMemo<PhoneStore>(
    () => ({
      state,
      webUsb,
      granted,
      demoPhoneUrl: demoPhoneUrl ?? null,
      connectUsb: (serial) =>
        connectWith("usb", async (onStatus) => {
          const { AdbDevice, BrowserCredentialStore, connectWebUsb } = await import("@phoneloop/device");
          const adb = await connectWebUsb({ credentialStore: new BrowserCredentialStore(), authorizationTimeoutMs: AUTHORIZATION_TIMEOUT_MS, onStatus, ...(serial ? { serial } : {}) });
          void refreshGranted();
          return new AdbDevice(adb);
        }),
      connectDemo: () =>
        connectWith("demo", async (onStatus) => {
          if (!demoPhoneUrl) throw new Error("this installation runs no demo phone (start PhoneLoop with `npm start`, which runs one)");
          const { AdbDevice, BrowserCredentialStore, connectWebSocket } = await import("@phoneloop/device");
          const name = `PhoneLoop@${globalThis.location?.hostname ?? "browser"} ${randomTag()}`;
          demoKeyName.current = name;
          const adb = await connectWebSocket({ url: demoPhoneUrl, serial: "demo-phone", credentialStore: new BrowserCredentialStore({ name }), authorizationTimeoutMs: AUTHORIZATION_TIMEOUT_MS, onStatus });
          return new AdbDevice(adb);
        }),
      demoKeyName: () => demoKeyName.current,
      connected: () => currentPhone.current,
      disconnect: async () => {
        attempt.current++;
        const device = current.current;
        current.current = null;
        currentPhone.current = null;
        setState({ status: "idle" });
        await device?.close().catch(() => undefined);
      },
    }),
    [state, webUsb, granted, demoPhoneUrl, connectWith, refreshGranted],
  );

  // Leaving the app closes the phone's connection, so another tab or program may take it.
  useEffect(() => () => void current.current?.close().catch(() => undefined), []);

  return <PhoneContext.Provider value={store}>{children}</PhoneContext.Provider>;
}

export function usePhone(): PhoneStore {
  const store = useContext(PhoneContext);
  if (!store) throw new Error("usePhone outside <PhoneProvider>");
  return store;
}

/** The connected phone, or null. */
export function useConnectedPhone(): { device: Device; info: DeviceInfo; connection: PhoneConnection } | null {
  const { state } = usePhone();
  return state.status === "connected" ? state : null;
}

/** What the connection is doing, in words. */
export function describeProgress(s: ConnectStatus | null, connection: PhoneConnection): string {
  if (!s) return connection === "demo" ? "Opening the demo phone…" : "Looking for your phone…";
  switch (s.kind) {
    case "requesting_device":
      return "Pick your phone in the browser's list…";
    case "opening":
      return `Opening ${s.serial}…`;
    case "handshaking":
      return "Talking to the phone…";
    case "waiting_for_authorization":
      return connection === "demo"
        ? `The demo phone asks "Allow USB debugging?" for this browser; PhoneLoop answers it for you (waiting up to ${Math.round(s.timeoutMs / 1000)} s).`
        : `Unlock the phone and tap "Allow" on "Allow USB debugging?" (waiting up to ${Math.round(s.timeoutMs / 1000)} s).`;
    case "connected":
      return `Connected to ${s.serial}`;
  }
}
