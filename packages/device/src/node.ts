// Node-only entry: TCP to an adbd, the host adb server, the ~/.android/adbkey credential store, and a WebSocket
// connection that uses the `ws` package (Node 20 has no global WebSocket).
import WebSocket from "ws";
import type { Adb } from "@yume-chan/adb";
import { connectWebSocket as connectWebSocketWith, type WebSocketConnectOptions, type WebSocketConstructor } from "./connections/websocket.ts";

export { connectTcp, AdbDaemonTcpDevice } from "./connections/tcp.ts";
export type { TcpConnectOptions, TcpDeviceOptions } from "./connections/tcp.ts";
export { connectAdbServer, listAdbServerPhones } from "./connections/adb-server.ts";
export type { AdbServerConnectOptions, AdbServerPhone } from "./connections/adb-server.ts";
export { NodeCredentialStore, defaultAdbKeyPath, adbPublicKeyLine } from "./credentials/node.ts";
export type { NodeCredentialStoreOptions } from "./credentials/node.ts";

export function connectWebSocketNode(opts: WebSocketConnectOptions): Promise<Adb> {
  return connectWebSocketWith({ WebSocket: WebSocket as unknown as WebSocketConstructor, ...opts });
}
