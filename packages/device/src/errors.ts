// Every failure the device layer can raise is a value with a code and a message the user can act on.

export const DeviceErrorCode = {
  Disconnected: "DEVICE_DISCONNECTED",
  Busy: "DEVICE_BUSY",
  Timeout: "DEVICE_TIMEOUT",
  NoWebUsb: "NO_WEBUSB",
  UsbPermissionDenied: "USB_PERMISSION_DENIED",
  AuthorizationTimeout: "AUTHORIZATION_TIMEOUT",
  NoDeviceSelected: "NO_DEVICE_SELECTED",
  KeyboardMissing: "ADB_KEYBOARD_MISSING",
  CommandFailed: "COMMAND_FAILED",
  ConnectionFailed: "CONNECTION_FAILED",
  Closed: "DEVICE_CLOSED",
} as const;
export type DeviceErrorCode = (typeof DeviceErrorCode)[keyof typeof DeviceErrorCode];

export abstract class DeviceError extends Error {
  abstract readonly code: DeviceErrorCode;
  /** What the user can do about it, in one or two sentences. */
  readonly fix: string;

  constructor(message: string, fix: string, options?: { cause?: unknown }) {
    super(`${message} ${fix}`.trim(), options);
    this.fix = fix;
    this.name = new.target.name;
  }
}

export class DeviceDisconnected extends DeviceError {
  readonly code = DeviceErrorCode.Disconnected;
  constructor(detail?: string, options?: { cause?: unknown }) {
    super(
      `The phone disconnected${detail ? ` (${detail})` : ""}.`,
      "Check the cable (or the network for a wireless phone), unlock the phone, and connect again.",
      options,
    );
  }
}

export class DeviceBusyError extends DeviceError {
  readonly code = DeviceErrorCode.Busy;
  constructor(options?: { cause?: unknown }) {
    super(
      "Another program is using this phone's USB debugging connection — usually an `adb` server started by Android Studio, scrcpy or a terminal.",
      "Run `adb kill-server` on this computer, close Android Studio, scrcpy and any other browser tab connected to the phone, then click Connect again.",
      options,
    );
  }
}

export class DeviceTimeout extends DeviceError {
  readonly code = DeviceErrorCode.Timeout;
  readonly operation: string;
  readonly timeoutMs: number;
  constructor(operation: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(
      `The phone did not answer "${operation}" within ${timeoutMs} ms.`,
      "The phone may be slow or frozen: unlock it, close heavy apps, and try again; if it keeps happening, reconnect it.",
      options,
    );
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

export class NoWebUsbSupport extends DeviceError {
  readonly code = DeviceErrorCode.NoWebUsb;
  constructor(options?: { cause?: unknown }) {
    super(
      "This browser cannot talk to USB devices (WebUSB is not available).",
      "Open PhoneLoop in Chrome, Edge or another Chromium-based browser on a desktop computer, over https or localhost.",
      options,
    );
  }
}

export class UsbPermissionDenied extends DeviceError {
  readonly code = DeviceErrorCode.UsbPermissionDenied;
  constructor(options?: { cause?: unknown }) {
    super(
      "The operating system refused access to the phone's USB interface.",
      "On Linux, add a udev rule so your user may open Android phones: `echo 'SUBSYSTEM==\"usb\", ENV{adb_user}==\"yes\", MODE=\"0660\", GROUP=\"plugdev\"' | sudo tee /etc/udev/rules.d/51-android.rules`, or install the `android-sdk-platform-tools-common` package, add yourself to the plugdev group, then unplug and replug the phone. On Windows, install the phone maker's USB driver.",
      options,
    );
  }
}

export class AuthorizationTimeout extends DeviceError {
  readonly code = DeviceErrorCode.AuthorizationTimeout;
  readonly timeoutMs: number;
  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(
      `The phone did not allow USB debugging within ${Math.round(timeoutMs / 1000)} s.`,
      'Unlock the phone, tap "Allow" on the "Allow USB debugging?" dialog (tick "Always allow from this computer"), then retry. If no dialog shows, unplug and replug the cable, or revoke USB debugging authorizations in Developer options.',
      options,
    );
    this.timeoutMs = timeoutMs;
  }
}

export class NoDeviceSelected extends DeviceError {
  readonly code = DeviceErrorCode.NoDeviceSelected;
  constructor(options?: { cause?: unknown }) {
    super(
      "No phone was selected.",
      "Plug the phone in with a data cable, turn on USB debugging in Developer options, click Connect and pick the phone in the browser's list.",
      options,
    );
  }
}

export class AdbKeyboardMissing extends DeviceError {
  readonly code = DeviceErrorCode.KeyboardMissing;
  constructor(text: string, options?: { cause?: unknown }) {
    super(
      `This phone cannot type non-ASCII text such as "${text.length > 20 ? `${text.slice(0, 20)}…` : text}" through \`input text\`.`,
      "Install ADBKeyboard (https://github.com/senzhk/ADBKeyBoard, `adb install ADBKeyboard.apk`) on the phone; PhoneLoop switches to it only while typing and restores your keyboard.",
      options,
    );
  }
}

export class DeviceCommandFailed extends DeviceError {
  readonly code = DeviceErrorCode.CommandFailed;
  readonly command: string;
  readonly output: string;
  constructor(command: string, output: string, fix = "Check that the phone is unlocked and try again.", options?: { cause?: unknown }) {
    super(`The phone could not run \`${command}\`: ${output.trim().slice(0, 300) || "no output"}.`, fix, options);
    this.command = command;
    this.output = output;
  }
}

export class ConnectionFailed extends DeviceError {
  readonly code = DeviceErrorCode.ConnectionFailed;
  constructor(target: string, detail: string, fix: string, options?: { cause?: unknown }) {
    super(`Could not connect to ${target}: ${detail}.`, fix, options);
  }
}

export class DeviceClosed extends DeviceError {
  readonly code = DeviceErrorCode.Closed;
  constructor() {
    super("This phone connection was closed by PhoneLoop.", "Connect the phone again to continue.");
  }
}

export function isDeviceError(e: unknown): e is DeviceError {
  return e instanceof DeviceError;
}

function errorName(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "name" in e && typeof e.name === "string" ? e.name : undefined;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Maps what WebUSB, the adb library or a socket threw into a DeviceError. WebUSB raises DOMExceptions by name:
 * NetworkError on claimInterface = another program holds the interface, SecurityError/"Access denied" = OS permission.
 */
export function toUsbConnectError(e: unknown): DeviceError {
  if (isDeviceError(e)) return e;
  const name = errorName(e);
  const message = errorMessage(e);
  if (name === "DeviceBusyError" || /already in used by another program/i.test(message)) return new DeviceBusyError({ cause: e });
  if (name === "NetworkError" && /claim/i.test(message)) return new DeviceBusyError({ cause: e });
  if (name === "SecurityError" || /access denied|permission denied|EACCES/i.test(message)) return new UsbPermissionDenied({ cause: e });
  if (name === "NotFoundError") return new NoDeviceSelected({ cause: e });
  if (name === "NetworkError" || /disconnected|device unavailable|No device selected/i.test(message)) return new DeviceDisconnected(message, { cause: e });
  return new ConnectionFailed("the phone over USB", message, "Unplug and replug the phone, then click Connect again.", { cause: e });
}
