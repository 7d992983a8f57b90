/// <reference types="w3c-web-usb" />
// Runs in the page (bundled into a Playwright init script): a `navigator.usb` with one Android phone whose bulk
// endpoints bridge to an adbd byte stream on a WebSocket, with USB framing — every ADB header and payload is its
// own transfer, and a transfer that is a multiple of the packet size is followed by a zero-length packet — so the
// real @yume-chan/adb-daemon-webusb code runs unchanged.

export type WebUsbStandInVariant =
  /** A working phone. */
  | "ok"
  /** claimInterface fails with NetworkError, as when an `adb` server holds the phone. */
  | "busy"
  /** open() fails with SecurityError, as on Linux without a udev rule. */
  | "permission-denied";

export interface WebUsbStandInConfig {
  /** ws:// URL carrying the adbd byte stream (the virtual phone's wsUrl). */
  wsUrl: string;
  variant?: WebUsbStandInVariant;
  serialNumber?: string;
  productName?: string;
  /** Whether the site was already granted the phone (getDevices() lists it without a prompt). Default false. */
  granted?: boolean;
  packetSize?: number;
}

export interface WebUsbStandInStats {
  prompts: number;
  opens: number;
  transfersIn: number;
  transfersOut: number;
  zeroLengthIn: number;
  zeroLengthOut: number;
  /** USB framing mistakes the host made (should stay empty). */
  framingErrors: string[];
}

export interface WebUsbStandInHandle {
  readonly stats: WebUsbStandInStats;
  readonly config: Required<WebUsbStandInConfig>;
  /** Simulates pulling the cable: pending transfers fail and a `disconnect` event fires. */
  unplug(): void;
  /** Pulls the cable in the middle of a transfer: once `bytes` more bytes were read from the phone, the next read fails. */
  unplugAfterBytesIn(bytes: number): void;
}

declare global {
  interface Window {
    __webUsbStandIn?: WebUsbStandInHandle;
  }
}

const HEADER = 24;

function networkError(message = "A transfer error has occurred."): DOMException {
  return new DOMException(message, "NetworkError");
}

export function installWebUsbStandIn(input: WebUsbStandInConfig): WebUsbStandInHandle {
  const config: Required<WebUsbStandInConfig> = {
    variant: "ok",
    serialNumber: "PHONELOOP-VIRTUAL",
    productName: "Virtual Phone",
    granted: false,
    packetSize: 512,
    ...input,
  };
  const stats: WebUsbStandInStats = { prompts: 0, opens: 0, transfersIn: 0, transfersOut: 0, zeroLengthIn: 0, zeroLengthOut: 0, framingErrors: [] };
  const packetSize = config.packetSize;

  // Chromium's USBConnectionEvent only accepts real USBDevice objects; the library constructs one for our fake.
  class StandInConnectionEvent extends Event {
    readonly device: USBDevice;
    constructor(type: string, init: { device: USBDevice }) {
      super(type);
      this.device = init.device;
    }
  }
  (globalThis as { USBConnectionEvent?: unknown }).USBConnectionEvent = StandInConnectionEvent;

  const endpoints = [
    { endpointNumber: 1, direction: "in", type: "bulk", packetSize },
    { endpointNumber: 2, direction: "out", type: "bulk", packetSize },
  ] as unknown as USBEndpoint[];
  const alternate = { alternateSetting: 0, interfaceClass: 0xff, interfaceSubclass: 0x42, interfaceProtocol: 1, interfaceName: "ADB Interface", endpoints } as USBAlternateInterface;
  const iface = { interfaceNumber: 0, alternate, alternates: [alternate], claimed: false } as { -readonly [K in keyof USBInterface]: USBInterface[K] };
  const configuration = { configurationValue: 1, configurationName: "adb", interfaces: [iface as USBInterface] } as USBConfiguration;

  // Device → host: whole transfers waiting to be read, and readers waiting for one.
  let inQueue: Uint8Array[] = [];
  let readers: { resolve: (t: Uint8Array) => void; reject: (e: unknown) => void }[] = [];
  let streamBuffer = new Uint8Array(0);
  let socket: WebSocket | undefined;
  let plugged = true;
  // Host → device framing check state.
  let expectPayload = 0;
  let lastOutLength = -1;
  let unplugBudget = Infinity;

  const deliver = (transfer: Uint8Array) => {
    const reader = readers.shift();
    if (reader) reader.resolve(transfer);
    else inQueue.push(transfer);
  };

  const failAll = (e: unknown) => {
    const pending = readers;
    readers = [];
    for (const r of pending) r.reject(e);
  };

  // Splits the adbd byte stream into the transfers a USB phone would send.
  const onDeviceBytes = (bytes: Uint8Array) => {
    const merged = new Uint8Array(streamBuffer.length + bytes.length);
    merged.set(streamBuffer);
    merged.set(bytes, streamBuffer.length);
    let offset = 0;
    for (;;) {
      if (merged.length - offset < HEADER) break;
      const view = new DataView(merged.buffer, merged.byteOffset + offset, HEADER);
      const payloadLength = view.getUint32(12, true);
      if (merged.length - offset < HEADER + payloadLength) break;
      deliver(merged.slice(offset, offset + HEADER));
      if (payloadLength > 0) {
        deliver(merged.slice(offset + HEADER, offset + HEADER + payloadLength));
        if (payloadLength % packetSize === 0) {
          stats.zeroLengthIn++;
          deliver(new Uint8Array(0));
        }
      }
      offset += HEADER + payloadLength;
    }
    streamBuffer = merged.slice(offset);
  };

  const disconnectEvent = () => usb.dispatchEvent(new StandInConnectionEvent("disconnect", { device }));

  const device = {
    usbVersionMajor: 2,
    usbVersionMinor: 0,
    usbVersionSubminor: 0,
    deviceClass: 0,
    deviceSubclass: 0,
    deviceProtocol: 0,
    vendorId: 0x18d1,
    productId: 0x4ee7,
    deviceVersionMajor: 1,
    deviceVersionMinor: 0,
    deviceVersionSubminor: 0,
    manufacturerName: "PhoneLoop",
    productName: config.productName,
    serialNumber: config.serialNumber,
    configuration: null as USBConfiguration | null,
    configurations: [configuration],
    opened: false,

    async open() {
      if (!plugged) throw new DOMException("The device was disconnected.", "NotFoundError");
      if (config.variant === "permission-denied") throw new DOMException("Access denied.", "SecurityError");
      if (device.opened) return;
      stats.opens++;
      inQueue = [];
      streamBuffer = new Uint8Array(0);
      expectPayload = 0;
      lastOutLength = -1;
      const ws = new WebSocket(config.wsUrl);
      ws.binaryType = "arraybuffer";
      socket = ws;
      await new Promise<void>((resolve, reject) => {
        ws.addEventListener("open", () => resolve(), { once: true });
        ws.addEventListener("error", () => reject(networkError("Failed to open the device.")), { once: true });
      });
      ws.addEventListener("message", (e: MessageEvent) => {
        if (socket === ws) onDeviceBytes(new Uint8Array(e.data as ArrayBuffer));
      });
      ws.addEventListener("close", () => {
        if (socket !== ws) return;
        // The phone's end went away: behave like an unplugged cable.
        handle.unplug();
      });
      device.opened = true;
      device.configuration = configuration;
    },

    async close() {
      device.opened = false;
      iface.claimed = false;
      const ws = socket;
      socket = undefined;
      ws?.close();
      failAll(new DOMException("The device was closed.", "InvalidStateError"));
    },

    async forget() {
      config.granted = false;
    },

    async selectConfiguration(value: number) {
      if (value !== 1) throw new DOMException("The configuration value provided is not supported by the device.", "NotFoundError");
      device.configuration = configuration;
    },

    async claimInterface(n: number) {
      if (!device.opened) throw new DOMException("The device must be opened first.", "InvalidStateError");
      if (n !== 0) throw new DOMException("The interface number provided is not supported by the device in its current configuration.", "NotFoundError");
      if (config.variant === "busy") throw new DOMException("Unable to claim interface.", "NetworkError");
      iface.claimed = true;
    },

    async releaseInterface() {
      iface.claimed = false;
    },

    async selectAlternateInterface() {},

    async transferIn(endpointNumber: number, length: number): Promise<USBInTransferResult> {
      if (!device.opened || !iface.claimed) throw new DOMException("The device must be opened and the interface claimed first.", "InvalidStateError");
      if (endpointNumber !== 1) throw new DOMException(`No IN endpoint ${endpointNumber}.`, "NotFoundError");
      if (!plugged) throw networkError();
      let transfer = inQueue.shift();
      if (!transfer) transfer = await new Promise<Uint8Array>((resolve, reject) => readers.push({ resolve, reject }));
      if (transfer.length > length) {
        // The rest stays for the next read, like a short host buffer on a long transfer.
        inQueue.unshift(transfer.slice(length));
        transfer = transfer.slice(0, length);
      }
      if (transfer.length > 0 && transfer.length >= unplugBudget) {
        // The cable comes out while this transfer is on the wire: the host never gets it.
        handle.unplug();
        throw networkError();
      }
      unplugBudget -= transfer.length;
      stats.transfersIn++;
      const data = new DataView(transfer.buffer, transfer.byteOffset, transfer.byteLength);
      return { data, status: "ok" } as USBInTransferResult;
    },

    async transferOut(endpointNumber: number, source: BufferSource): Promise<USBOutTransferResult> {
      if (!device.opened || !iface.claimed) throw new DOMException("The device must be opened and the interface claimed first.", "InvalidStateError");
      if (endpointNumber !== 2) throw new DOMException(`No OUT endpoint ${endpointNumber}.`, "NotFoundError");
      if (!plugged || !socket || socket.readyState !== WebSocket.OPEN) throw networkError();
      const bytes = ArrayBuffer.isView(source)
        ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength).slice()
        : new Uint8Array(source).slice();
      stats.transfersOut++;
      if (bytes.length === 0) {
        stats.zeroLengthOut++;
        if (lastOutLength <= 0 || lastOutLength % packetSize !== 0) stats.framingErrors.push(`zero-length packet after a ${lastOutLength}-byte transfer`);
        lastOutLength = 0;
        return { bytesWritten: 0, status: "ok" } as USBOutTransferResult;
      }
      if (lastOutLength > 0 && lastOutLength % packetSize === 0) stats.framingErrors.push(`missing zero-length packet after a ${lastOutLength}-byte transfer`);
      if (expectPayload > 0) {
        if (bytes.length !== expectPayload) stats.framingErrors.push(`payload transfer of ${bytes.length} bytes, header said ${expectPayload}`);
        expectPayload = 0;
      } else if (bytes.length !== HEADER) {
        stats.framingErrors.push(`header transfer of ${bytes.length} bytes (header and payload must be separate transfers)`);
      } else {
        expectPayload = new DataView(bytes.buffer).getUint32(12, true);
      }
      lastOutLength = bytes.length;
      socket.send(bytes);
      return { bytesWritten: bytes.length, status: "ok" } as USBOutTransferResult;
    },

    async controlTransferIn(): Promise<USBInTransferResult> {
      throw new DOMException("Control transfers are not supported by the stand-in.", "NotSupportedError");
    },
    async controlTransferOut(): Promise<USBOutTransferResult> {
      throw new DOMException("Control transfers are not supported by the stand-in.", "NotSupportedError");
    },
    async clearHalt() {},
    async reset() {},
    async isochronousTransferIn(): Promise<USBIsochronousInTransferResult> {
      throw new DOMException("Not supported.", "NotSupportedError");
    },
    async isochronousTransferOut(): Promise<USBIsochronousOutTransferResult> {
      throw new DOMException("Not supported.", "NotSupportedError");
    },
  };

  const usb = new EventTarget() as EventTarget & {
    onconnect: ((e: Event) => void) | null;
    ondisconnect: ((e: Event) => void) | null;
    getDevices(): Promise<USBDevice[]>;
    requestDevice(options?: USBDeviceRequestOptions): Promise<USBDevice>;
  };
  usb.onconnect = null;
  usb.ondisconnect = null;
  usb.getDevices = async () => (config.granted && plugged ? [device as unknown as USBDevice] : []);
  usb.requestDevice = async (options?: USBDeviceRequestOptions) => {
    stats.prompts++;
    if (!plugged) throw new DOMException("No device selected.", "NotFoundError");
    const wanted = options?.filters ?? [];
    const matches =
      wanted.length === 0 ||
      wanted.some(
        (f) =>
          (f.vendorId === undefined || f.vendorId === device.vendorId) &&
          (f.classCode === undefined || f.classCode === 0xff) &&
          (f.subclassCode === undefined || f.subclassCode === 0x42) &&
          (f.protocolCode === undefined || f.protocolCode === 1),
      );
    if (!matches) throw new DOMException("No device selected.", "NotFoundError");
    config.granted = true;
    return device as unknown as USBDevice;
  };

  const handle: WebUsbStandInHandle = {
    stats,
    config,
    unplug() {
      if (!plugged) return;
      plugged = false;
      device.opened = false;
      iface.claimed = false;
      const ws = socket;
      socket = undefined;
      ws?.close();
      failAll(networkError());
      disconnectEvent();
    },
    unplugAfterBytesIn(bytes: number) {
      unplugBudget = bytes;
    },
  };

  Object.defineProperty(Navigator.prototype, "usb", { configurable: true, get: () => usb });
  window.__webUsbStandIn = handle;
  return handle;
}
