// The control API over HTTP, and the faults it injects into the ADB side.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Adb, AdbDaemonTransport } from "@yume-chan/adb";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { NodeCredentialStore, tcpConnection, wsConnection } from "../conformance/yume-connection.ts";
import { inspectPng } from "../conformance/png.ts";

let phone: VirtualPhone;
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${phone.controlUrl}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { "content-type": "application/json" } });
  const type = res.headers.get("content-type") ?? "";
  return { status: res.status, body: type.includes("json") ? ((await res.json()) as Record<string, any>) : Buffer.from(await res.arrayBuffer()) } as { status: number; body: any };
};
const connect = async (via: "tcp" | "ws" = "tcp") =>
  new Adb(await AdbDaemonTransport.authenticate({ serial: "t", connection: via === "tcp" ? await tcpConnection(phone.adbPort) : await wsConnection(phone.wsUrl), credentialStore: new NodeCredentialStore() }));

beforeAll(async () => {
  phone = await startVirtualPhone({ scenario: "social", seed: 1 });
});
afterAll(async () => {
  await phone?.stop();
});

describe("control API", () => {
  it("answers browser preflight requests so the demo page can call it", async () => {
    const res = await fetch(`${phone.controlUrl}/input`, { method: "OPTIONS", headers: { origin: "http://localhost:3000", "access-control-request-method": "POST" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
  });

  it("describes itself and lists scenarios and tasks", async () => {
    const root = await api("GET", "/");
    expect(root.body).toMatchObject({ serial: phone.serial, adbPort: phone.adbPort, wsPort: phone.wsPort, scenario: "social" });
    expect((await api("GET", "/scenarios")).body.map((s: { name: string }) => s.name)).toContain("social");
    const tasks = (await api("GET", "/tasks")).body as { id: string; goal: string }[];
    expect(tasks.find((t) => t.id === "social_collect_views")?.goal).toContain("'mobile AI agents'");
    expect((await api("GET", "/schema")).body.title).toBe("PhoneLoop virtual phone scenario");
  });

  it("loads scenarios, and rejects a bad one with the path of the bad field", async () => {
    expect((await api("POST", "/scenario", { name: "settings", seed: 4 })).body).toMatchObject({ scenario: "settings", seed: 4 });
    expect((await api("GET", "/state")).body.foreground).toBe("settings");
    const bad = await api("POST", "/scenario", { scenario: { name: "x", apps: [{ id: "a", package: "com.a.b", label: "A", start: "missing", screens: [{ id: "home" }] }] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("SCENARIO_INVALID");
    expect(bad.body.error.issues).toEqual([{ path: "apps[0].start", message: 'no screen "missing" in app "a"' }]);
    expect((await api("GET", "/state")).body.scenario).toBe("settings"); // a rejected load keeps the current scenario
  });

  it("resets with a seed, drives input, starts and evaluates a task", async () => {
    await api("POST", "/scenario", { name: "social" });
    const started = await api("POST", "/tasks/settings_wifi_off/start", { seed: 2 });
    expect(started.body).toMatchObject({ task: "settings_wifi_off", goal: "Turn off Wi-Fi.", maxSteps: 12 });
    expect((await api("POST", "/tasks/settings_wifi_off/evaluate", {})).body.score).toBe(0);
    await api("POST", "/input", { type: "launch", app: "settings", screen: "network" });
    const xml = (await api("GET", "/ui")).body.toString();
    const m = /resource-id="com\.android\.settings:id\/wifi_switch"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(xml)!;
    await api("POST", "/input", { type: "tap", x: (Number(m[1]) + Number(m[3])) / 2, y: (Number(m[2]) + Number(m[4])) / 2 });
    expect((await api("POST", "/tasks/settings_wifi_off/evaluate", {})).body).toMatchObject({ score: 1, reason: "all 1 checks passed" });
    expect(inspectPng((await api("GET", "/screenshot")).body)).toMatchObject({ width: 1080, height: 2400 });
    const reset = await api("POST", "/reset", { seed: 9 });
    expect(reset.body).toMatchObject({ seed: 9, foreground: "social" });
    expect((await api("POST", "/input", { type: "key", key: "KEYCODE_NOPE" })).status).toBe(400);
    expect((await api("POST", "/tasks/nope/evaluate", {})).status).toBe(404);
  });

  it("fails the next command, as an exit status or a closed stream", async () => {
    const adb = await connect();
    await api("POST", "/faults", { failNext: "exit" });
    const failed = await adb.subprocess.shellProtocol!.spawnWaitText("echo hi");
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain("injected failure");
    expect((await adb.subprocess.shellProtocol!.spawnWaitText("echo hi")).stdout).toBe("hi\n");
    await api("POST", "/faults", { failNext: "close" });
    expect(await adb.subprocess.noneProtocol.spawnWaitText("echo hi")).toBe("");
    expect(await adb.subprocess.noneProtocol.spawnWaitText("echo hi")).toBe("hi\n");
    expect((await api("GET", "/faults")).body).toEqual({ slowMs: 0, failNext: null, frozen: false });
    await adb.close();
  });

  it("freezes the screen and unfreezes it", async () => {
    await api("POST", "/reset", { seed: 1 });
    await api("POST", "/faults", { freeze: true });
    const before = (await api("GET", "/screenshot")).body as Buffer;
    await api("POST", "/input", { type: "back" });
    expect(((await api("GET", "/screenshot")).body as Buffer).equals(before)).toBe(true);
    await api("DELETE", "/faults");
    expect(((await api("GET", "/screenshot")).body as Buffer).equals(before)).toBe(false);
  });

  it("drops every ADB connection, TCP and WebSocket", async () => {
    const a = await connect("tcp");
    const b = await connect("ws");
    await api("POST", "/faults", { drop: true });
    // both resolve (or reject) only once their connection is gone; a live connection would time the test out
    await Promise.all([a.disconnected.catch(() => undefined), b.disconnected.catch(() => undefined)]);
    const again = await connect("ws");
    expect((await again.subprocess.shellProtocol!.spawnWaitText("echo back")).stdout).toBe("back\n");
    await again.close();
  });

  it("slows every command by the configured delay", async () => {
    vi.useFakeTimers();
    try {
      phone.engine.faults.slowMs = 5000;
      let done = false;
      const p = phone.engine.beforeCommand(["echo"]).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(4999);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await p;
      expect(done).toBe(true);
    } finally {
      phone.engine.faults.slowMs = 0;
      vi.useRealTimers();
    }
  });
});
