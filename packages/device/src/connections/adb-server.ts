// Node only: through the host's `adb` server (port 5037), for headless runs on a machine where adb owns the phones.
import { AdbServerClient, type Adb } from "@yume-chan/adb";
import { AdbServerNodeTcpConnector } from "@yume-chan/adb-server-node-tcp";
import { AuthorizationTimeout, ConnectionFailed, NoDeviceSelected } from "../errors.ts";

export interface AdbServerConnectOptions {
  host?: string;
  port?: number;
  /** Which phone; default: the only one in state "device". */
  serial?: string;
}

export interface AdbServerPhone {
  serial: string;
  state: AdbServerClient.ConnectionState;
  model?: string | undefined;
}

function clientFor(opts: AdbServerConnectOptions): AdbServerClient {
  return new AdbServerClient(new AdbServerNodeTcpConnector({ host: opts.host ?? "127.0.0.1", port: opts.port ?? 5037 }));
}

function mapServerError(e: unknown, target: string): never {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ECONNREFUSED") {
    throw new ConnectionFailed(target, "no adb server is running", "Run `adb start-server` (or plug the phone in and run `adb devices`), then try again.", { cause: e });
  }
  if (e instanceof AdbServerClient.UnauthorizedError) throw new AuthorizationTimeout(0, { cause: e });
  throw new ConnectionFailed(target, e instanceof Error ? e.message : String(e), "Run `adb devices` to check the phone is listed as \"device\".", { cause: e });
}

export async function listAdbServerPhones(opts: AdbServerConnectOptions = {}): Promise<AdbServerPhone[]> {
  const target = `the adb server at ${opts.host ?? "127.0.0.1"}:${opts.port ?? 5037}`;
  try {
    const devices = await clientFor(opts).getDevices(["device", "unauthorized", "offline"]);
    return devices.map((d) => ({ serial: d.serial, state: d.state, model: d.model }));
  } catch (e) {
    mapServerError(e, target);
  }
}

export async function connectAdbServer(opts: AdbServerConnectOptions = {}): Promise<Adb> {
  const target = `the adb server at ${opts.host ?? "127.0.0.1"}:${opts.port ?? 5037}`;
  const client = clientFor(opts);
  let phones: AdbServerClient.Device[];
  try {
    phones = await client.getDevices(["device", "unauthorized", "offline"]);
  } catch (e) {
    mapServerError(e, target);
  }
  const candidates = opts.serial ? phones.filter((p) => p.serial === opts.serial) : phones;
  const ready = candidates.filter((p) => p.state === "device");
  if (candidates.length === 0) throw new NoDeviceSelected();
  if (ready.length === 0) {
    if (candidates.some((p) => p.state === "unauthorized")) throw new AuthorizationTimeout(0);
    throw new ConnectionFailed(target, `${candidates[0]!.serial} is ${candidates[0]!.state}`, "Replug the phone or run `adb reconnect offline`.");
  }
  if (ready.length > 1) {
    throw new ConnectionFailed(target, `${ready.length} phones are connected (${ready.map((p) => p.serial).join(", ")})`, "Pass the serial of the phone to use.");
  }
  try {
    return await client.createAdb({ serial: ready[0]!.serial });
  } catch (e) {
    mapServerError(e, target);
  }
}
