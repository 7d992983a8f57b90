import { describe, expect, it } from "vitest";
import { DeviceBusyError, DeviceDisconnected, DeviceErrorCode, NoDeviceSelected, toUsbConnectError, UsbPermissionDenied } from "./errors.ts";

const dom = (name: string, message: string) => Object.assign(new Error(message), { name });

describe("USB error mapping", () => {
  it("explains a busy interface with the fix", () => {
    const busyFromLibrary = Object.assign(new Error("The device is already in used by another program"), { name: "DeviceBusyError" });
    for (const e of [busyFromLibrary, dom("NetworkError", "Unable to claim interface.")]) {
      const mapped = toUsbConnectError(e);
      expect(mapped).toBeInstanceOf(DeviceBusyError);
      expect(mapped.code).toBe(DeviceErrorCode.Busy);
      expect(mapped.message).toContain("adb kill-server");
      expect(mapped.message).toMatch(/Android Studio/);
      expect(mapped.cause).toBe(e);
    }
  });

  it("maps permission, selection and disconnect errors", () => {
    expect(toUsbConnectError(dom("SecurityError", "Access denied."))).toBeInstanceOf(UsbPermissionDenied);
    expect(toUsbConnectError(dom("SecurityError", "Access denied.")).message).toContain("udev");
    expect(toUsbConnectError(dom("NotFoundError", "No device selected."))).toBeInstanceOf(NoDeviceSelected);
    expect(toUsbConnectError(dom("NetworkError", "A transfer error has occurred."))).toBeInstanceOf(DeviceDisconnected);
  });

  it("keeps DeviceErrors as they are", () => {
    const e = new DeviceDisconnected("test");
    expect(toUsbConnectError(e)).toBe(e);
    expect(e.name).toBe("DeviceDisconnected");
  });
});
