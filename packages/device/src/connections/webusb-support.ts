/// <reference types="w3c-web-usb" />
// Whether this browser has WebUSB, without loading the ADB stack: a page asks this on every load, and loads the
// rest of the package (webusb.ts, adb-device.ts) only when a phone is connected.

export function webUsb(): USB | undefined {
  return typeof navigator !== "undefined" ? (navigator as Navigator & { usb?: USB }).usb : undefined;
}

export function isWebUsbSupported(usb: USB | undefined = webUsb()): boolean {
  return usb !== undefined;
}
