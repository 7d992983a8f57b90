// ADB over TCP: what `adb connect host:port` talks to.
import { createServer, type Server, type Socket } from "node:net";
import { AdbDaemonSession, type AdbDaemonInit } from "../adb/daemon.ts";

export interface Listening {
  port: number;
  close(): Promise<void>;
  dropAll(): void;
  sessions(): AdbDaemonSession[];
}

export function listenTcp(host: string, port: number, init: () => AdbDaemonInit): Promise<Listening> {
  const sockets = new Map<Socket, AdbDaemonSession>();
  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    const session = new AdbDaemonSession(
      {
        send(header, payload) {
          if (socket.destroyed) return;
          socket.write(payload.length ? Buffer.concat([header, payload]) : header);
        },
        close() {
          socket.destroy();
        },
      },
      init(),
    );
    sockets.set(socket, session);
    socket.on("data", (d) => session.receive(d));
    socket.on("error", () => {});
    socket.on("close", () => {
      session.closed();
      sockets.delete(socket);
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const addr = server.address();
      resolve({
        port: typeof addr === "object" && addr ? addr.port : port,
        sessions: () => [...sockets.values()],
        dropAll() {
          for (const s of sockets.keys()) s.destroy();
        },
        close: () =>
          new Promise<void>((res) => {
            for (const s of sockets.keys()) s.destroy();
            server.close(() => res());
          }),
      });
    });
  });
}
