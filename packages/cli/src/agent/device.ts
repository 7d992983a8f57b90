// `--device tcp:host:port | ws:url | adb-server[:serial]` → a connected Device (Node: TCP, WebSocket or adb server).
import { AdbDevice } from "@phoneloop/device";
import { connectAdbServer, connectTcp, connectWebSocketNode, NodeCredentialStore } from "@phoneloop/device/node";
import { UsageError } from "../args.ts";

export type DeviceSpec = { kind: "tcp"; host: string; port: number } | { kind: "ws"; url: string } | { kind: "adb-server"; serial?: string };

export function parseDeviceSpec(s: string): DeviceSpec {
  if (s.startsWith("tcp:")) {
    const rest = s.slice(4);
    const i = rest.lastIndexOf(":");
    const host = i > 0 ? rest.slice(0, i) : "127.0.0.1";
    const port = Number(i > 0 ? rest.slice(i + 1) : rest);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new UsageError(`--device ${s}: the port must be a number, e.g. tcp:127.0.0.1:5555`);
    return { kind: "tcp", host, port };
  }
  if (s.startsWith("ws:") || s.startsWith("wss:")) {
    const url = s.startsWith("ws:ws://") || s.startsWith("ws:wss://") ? s.slice(3) : s;
    if (!URL.canParse(url)) throw new UsageError(`--device ${s}: not a WebSocket URL, e.g. ws:ws://127.0.0.1:8080/`);
    return { kind: "ws", url };
  }
  if (s === "adb-server" || s.startsWith("adb-server:")) {
    const serial = s.slice("adb-server:".length);
    return serial ? { kind: "adb-server", serial } : { kind: "adb-server" };
  }
  throw new UsageError(`--device ${s}: use tcp:host:port, ws:url or adb-server[:serial]`);
}

export async function connectDevice(spec: DeviceSpec): Promise<AdbDevice> {
  const credentialStore = new NodeCredentialStore();
  const adb =
    spec.kind === "tcp"
      ? await connectTcp({ host: spec.host, port: spec.port, credentialStore })
      : spec.kind === "ws"
        ? await connectWebSocketNode({ url: spec.url, credentialStore })
        : await connectAdbServer(spec.serial ? { serial: spec.serial } : {});
  return new AdbDevice(adb);
}
