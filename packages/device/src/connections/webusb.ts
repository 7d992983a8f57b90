/// <reference types="w3c-web-usb" />
// WebUSB in the browser through @yume-chan/adb-daemon-webusb: granted phones reconnect without a prompt, the
// "Allow USB debugging?" wait is reported and bounded, and every USB failure becomes a DeviceError with its fix.
import type { Adb, AdbCredentialStore } from "@yume-chan/adb";
import { AdbDaemonWebUsbDevice, AdbDaemonWebUsbDeviceManager } from "@yume-chan/adb-daemon-webusb";
import { DeviceBusyError, NoDeviceSelected, NoWebUsbSupport, toUsbConnectError, type DeviceError } from "../errors.ts";
import { BrowserCredentialStore } from "../credentials/browser.ts";
import { handshake, type ConnectStatus } from "./handshake.ts";
import { webUsb } from "./webusb-support.ts";

export interface WebUsbConnectOptions {
  /** Default navigator.usb. */
  usb?: USB;
  /** Default: a BrowserCredentialStore (IndexedDB). */
  credentialStore?: AdbCredentialStore;
  /** Prefer this phone among those already granted. */
  serial?: string;
  /** Show the browser's device chooser when no phone is granted yet (needs a user gesture). Default true. */
  prompt?: boolean;
  onStatus?: (status: ConnectStatus) => void;
  handshakeTimeoutMs?: number;
  /** How long to wait for the user to tap "Allow" on the phone (default 60 s); retry by calling again. */
  authorizationTimeoutMs?: number;
}


function mapUsbError(e: unknown): DeviceError {
  if (e instanceof AdbDaemonWebUsbDevice.DeviceBusyError) return new DeviceBusyError({ cause: e });
  return toUsbConnectError(e);
}

/** Phones this site may already open (granted earlier), without showing a prompt. */
export async function listGrantedPhones(usb: USB | undefined = webUsb()): Promise<AdbDaemonWebUsbDevice[]> {
  if (!usb) throw new NoWebUsbSupport();
  return new AdbDaemonWebUsbDeviceManager(usb).getDevices();
}

export async function pickWebUsbPhone(opts: WebUsbConnectOptions = {}): Promise<AdbDaemonWebUsbDevice> {
  const usb = opts.usb ?? webUsb();
  if (!usb) throw new NoWebUsbSupport();
  const manager = new AdbDaemonWebUsbDeviceManager(usb);
  const granted = await manager.getDevices();
  const known = (opts.serial ? granted.find((d) => d.serial === opts.serial) : undefined) ?? (opts.serial ? undefined : granted[0]);
  if (known) return known;
  if (opts.prompt === false) throw new NoDeviceSelected();
  opts.onStatus?.({ kind: "requesting_device" });
  let chosen: AdbDaemonWebUsbDevice | undefined;
  try {
    chosen = await manager.requestDevice();
  } catch (e) {
    throw mapUsbError(e);
  }
  if (!chosen) throw new NoDeviceSelected();
  return chosen;
}

export async function connectWebUsb(opts: WebUsbConnectOptions = {}): Promise<Adb> {
  const device = await pickWebUsbPhone(opts);
  opts.onStatus?.({ kind: "opening", serial: device.serial });
  let connection;
  try {
    connection = await device.connect();
  } catch (e) {
    throw mapUsbError(e);
  }
  return handshake({
    serial: device.serial,
    connection,
    credentialStore: opts.credentialStore ?? new BrowserCredentialStore(),
    abort: () => device.raw.close().catch(() => undefined),
    onStatus: opts.onStatus,
    handshakeTimeoutMs: opts.handshakeTimeoutMs,
    authorizationTimeoutMs: opts.authorizationTimeoutMs,
    mapError: mapUsbError,
  });
}
