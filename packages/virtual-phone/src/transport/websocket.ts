// ADB over WebSocket for browsers: binary messages carry the ADB byte stream. The device sends each packet's
// 24-byte header and its payload as two messages (as USB bulk transfers do); it accepts any chunking inbound.
import { WebSocketServer, type WebSocket } from "ws";
import { AdbDaemonSession, type AdbDaemonInit } from "../adb/daemon.ts";
import type { Listening } from "./tcp.ts";

/**
 * A browser always sends Origin: a page may reach the phone only from an allowed origin (any other page open in the
 * same browser gets 403 before the upgrade). Clients without Origin are programs, not pages; ADB auth still applies.
 */
export function originAllowed(origin: string | undefined, allowOrigins: readonly string[]): boolean {
  return origin === undefined || allowOrigins.includes(origin);
}

export function listenWebSocket(host: string, port: number, init: () => AdbDaemonInit, allowOrigins: readonly string[] = []): Promise<Listening> {
  const sockets = new Map<WebSocket, AdbDaemonSession>();
  const wss = new WebSocketServer({
    host,
    port,
    perMessageDeflate: false,
    maxPayload: 16 * 1024 * 1024,
    verifyClient: ({ req }, done) => {
      if (originAllowed(req.headers.origin, allowOrigins)) return done(true);
      const why = `Origin ${req.headers.origin} may not use this phone; start it with --allow-origin ${req.headers.origin} to let that page connect`;
      done(false, 403, why, { "Content-Type": "text/plain; charset=utf-8" });
    },
  });
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
