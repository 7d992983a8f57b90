// ADB handshake (CNXN + AUTH) with a status callback and timeouts: short while the phone should simply answer,
// long once it shows "Allow USB debugging?" and waits for the user.
import {
  Adb,
  AdbDaemonTransport,
  AdbPublicKeyAuthenticator,
  AdbSignatureAuthenticator,
  type AdbAuthenticator,
  type AdbCredentialStore,
  type AdbDaemonConnection,
} from "@yume-chan/adb";
import { AuthorizationTimeout, ConnectionFailed, DeviceTimeout, isDeviceError, type DeviceError } from "../errors.ts";

export type ConnectStatus =
  | { kind: "requesting_device" }
  | { kind: "opening"; serial: string }
  | { kind: "handshaking"; serial: string }
  | { kind: "waiting_for_authorization"; serial: string; timeoutMs: number }
  | { kind: "connected"; serial: string };

export interface HandshakeOptions {
  serial: string;
  connection: AdbDaemonConnection;
  credentialStore: AdbCredentialStore;
  /** Closes the underlying transport; called on timeout so a retry can open the phone again. */
  abort: () => Promise<void> | void;
  onStatus?: (status: ConnectStatus) => void;
  /** Until the phone asks the user to authorize (default 10 s). */
  handshakeTimeoutMs?: number;
  /** While "Allow USB debugging?" is on screen (default 60 s). */
  authorizationTimeoutMs?: number;
  /** Maps a transport error to a DeviceError (default: ConnectionFailed). */
  mapError?: (e: unknown) => DeviceError;
}

export async function handshake(opts: HandshakeOptions): Promise<Adb> {
  const handshakeTimeoutMs = opts.handshakeTimeoutMs ?? 10_000;
  const authorizationTimeoutMs = opts.authorizationTimeoutMs ?? 60_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let rejectTimeout!: (e: DeviceError) => void;
  const timeout = new Promise<never>((_, reject) => (rejectTimeout = reject));
  const arm = (ms: number, error: () => DeviceError) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      void Promise.resolve(opts.abort()).catch(() => undefined);
      rejectTimeout(error());
    }, ms);
  };
  arm(handshakeTimeoutMs, () => new DeviceTimeout("connect (ADB handshake)", handshakeTimeoutMs));

  // The phone shows its dialog when it receives our public key; from then on the user is the one we wait for.
  const notifyingPublicKey: AdbAuthenticator = async function* (store, getNextRequest) {
    for await (const packet of AdbPublicKeyAuthenticator(store, getNextRequest)) {
      arm(authorizationTimeoutMs, () => new AuthorizationTimeout(authorizationTimeoutMs));
      opts.onStatus?.({ kind: "waiting_for_authorization", serial: opts.serial, timeoutMs: authorizationTimeoutMs });
      yield packet;
    }
  };

  opts.onStatus?.({ kind: "handshaking", serial: opts.serial });
  const authenticating = AdbDaemonTransport.authenticate({
    serial: opts.serial,
    connection: opts.connection,
    credentialStore: opts.credentialStore,
    authenticators: [AdbSignatureAuthenticator, notifyingPublicKey],
  });
  authenticating.catch(() => undefined); // settled through the race below
  try {
    const transport = await Promise.race([authenticating, timeout]);
    opts.onStatus?.({ kind: "connected", serial: opts.serial });
    return new Adb(transport);
  } catch (e) {
    if (isDeviceError(e)) throw e;
    throw opts.mapError ? opts.mapError(e) : new ConnectionFailed(opts.serial, e instanceof Error ? e.message : String(e), "Check the phone is on and reachable, then connect again.", { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

/** What connecting to an adbd over any byte transport needs besides the transport. */
export interface DaemonConnectOptions {
  credentialStore: AdbCredentialStore;
  onStatus?: (status: ConnectStatus) => void;
  handshakeTimeoutMs?: number;
  authorizationTimeoutMs?: number;
}

/** Opens a daemon device (TCP, WebSocket…) and runs the handshake over it. */
export async function connectDaemonDevice(
  device: { serial: string; connect(): Promise<AdbDaemonConnection>; abort(): void },
  opts: DaemonConnectOptions,
): Promise<Adb> {
  opts.onStatus?.({ kind: "opening", serial: device.serial });
  const connection = await device.connect();
  return handshake({
    serial: device.serial,
    connection,
    credentialStore: opts.credentialStore,
    abort: () => device.abort(),
    onStatus: opts.onStatus,
    handshakeTimeoutMs: opts.handshakeTimeoutMs,
    authorizationTimeoutMs: opts.authorizationTimeoutMs,
  });
}
