// Browser-safe entry: the Device port, AdbDevice over any `Adb`, WebUSB and WebSocket connections, and helpers.
// Node-only connections (TCP, adb server) and the file credential store live in "@phoneloop/device/node".
export type * from "./device.ts";
export * from "./errors.ts";
export { AdbDevice, DEFAULT_TIMEOUTS, hasLoadingIndicator, parseBattery, parseForeground, parseWmDensity, parseWmSize, scrollGesture } from "./adb-device.ts";
export type { AdbDeviceOptions, DeviceTimeouts, ShellResult, StableDefaults } from "./adb-device.ts";
export { parseUiTree, flattenUiTree, findUiNodes, centerOf, parseBounds, normaliseUiText, UiTreeParseError } from "./ui-tree.ts";
export { ADB_KEYBOARD_IME, KEYCODE, canUseInputText, planInputText, inputTextCommands, shellQuote, shellCommand } from "./input-text.ts";
export { inputCommandsIn, RUNNING_COMMANDS_PS } from "./drain.ts";
export { phashPng, phashGray, phashCells, hammingDistance, PHASH_SIZE } from "./phash.ts";
export { decodePngGray, decodePngThumbnail, readPngHeader, isPng, sameBytes, PngDecodeError } from "./png.ts";
export type { ConnectStatus } from "./connections/handshake.ts";
export { handshake } from "./connections/handshake.ts";
export { connectWebUsb, pickWebUsbPhone, listGrantedPhones } from "./connections/webusb.ts";
export { isWebUsbSupported } from "./connections/webusb-support.ts";
export type { WebUsbConnectOptions } from "./connections/webusb.ts";
export { connectWebSocket, AdbDaemonWebSocketDevice } from "./connections/websocket.ts";
export type { WebSocketConnectOptions, WebSocketDeviceOptions, WebSocketLike, WebSocketConstructor } from "./connections/websocket.ts";
export { packetConnectionOverBytes } from "./connections/packet-stream.ts";
export { BrowserCredentialStore, MemoryCredentialStore } from "./credentials/browser.ts";
