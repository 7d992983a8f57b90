// ADB over WebSocket for browsers: binary messages carry the ADB byte stream. The device sends each packet's
// 24-byte header and its payload as two messages (as USB bulk transfers do); it accepts any chunking inbound.
import { WebSocketServer, type WebSocket } from "ws";
import { AdbDaemonSession, type AdbDaemonInit } from "../adb/daemon.ts";
import type { Listening } from "./tcp.ts";

export function listenWebSocket(host: string, port: number, init: () => AdbDaemonInit): Promise<Listening> {
  const sockets = new Map<WebSocket, AdbDaemonSession>();
  const wss = new WebSocketServer({ host, port, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });
  wss.on("connection", (ws) => {
    const session = new AdbDaemonSession(
      {
        send(header, payload) {
          if (ws.readyState !== ws.OPEN) return;
          ws.send(header, { binary: true });
          if (payload.length) ws.send(payload, { binary: true });
        },
        close() {
          ws.terminate();
        },
      },
      init(),
    );
    sockets.set(ws, session);
    ws.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      session.receive(buf);
    });
    ws.on("error", () => {});
    ws.on("close", () => {
      session.closed();
      sockets.delete(ws);
    });
  });
  return new Promise((resolve, reject) => {
    wss.once("error", reject);
    wss.once("listening", () => {
      wss.off("error", reject);
      const addr = wss.address();
      resolve({
        port: typeof addr === "object" && addr ? addr.port : port,
        sessions: () => [...sockets.values()],
        dropAll() {
          for (const ws of sockets.keys()) ws.terminate();
        },
        close: () =>
          new Promise<void>((res) => {
            for (const ws of sockets.keys()) ws.terminate();
            wss.close(() => res());
          }),
      });
    });
  });
}
