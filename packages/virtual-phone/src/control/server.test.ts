// The control API over HTTP, and the faults it injects into the ADB side.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { request } from "node:http";
import { Adb, AdbDaemonTransport } from "@yume-chan/adb";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { tcpConnection, trustedStore, wsConnection } from "../conformance/yume-connection.ts";
import { inspectPng } from "../conformance/png.ts";

let phone: VirtualPhone;
const WEB = "http://127.0.0.1:3000";
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${phone.controlUrl}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { "content-type": "application/json", authorization: `Bearer ${phone.controlToken}` } });
  const type = res.headers.get("content-type") ?? "";
  // The tests read the control API's JSON answers field by field and their expect() calls are the check of its
  // shape, so the body is left untyped here rather than cast at every read.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: type.includes("json") ? ((await res.json()) as Record<string, any>) : Buffer.from(await res.arrayBuffer()) } as { status: number; body: any };
};
const connect = async (via: "tcp" | "ws" = "tcp") =>
  new Adb(await AdbDaemonTransport.authenticate({ serial: "t", connection: via === "tcp" ? await tcpConnection(phone.adbPort) : await wsConnection(phone.wsUrl), credentialStore: trusted }));
const trusted = trustedStore();

beforeAll(async () => {
  phone = await startVirtualPhone({ scenario: "social", seed: 1, adbKeys: trusted.publicKeyLines(), allowOrigins: [WEB] });
});
afterAll(async () => {
  await phone?.stop();
});

describe("control API", () => {
  it("answers 401 without its token, and sends no wildcard CORS", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong" }, { authorization: phone.controlToken }, { origin: WEB }];
    for (const headers of attempts) {
      const res = await fetch(`${phone.controlUrl}/input`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ type: "home" }) });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="virtual-phone"');
      expect(res.headers.get("access-control-allow-origin")).not.toBe("*");
      expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "UNAUTHORIZED", message: expect.stringContaining("Authorization: Bearer") });
    }
    const anon = await fetch(`${phone.controlUrl}/state`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get("access-control-allow-origin")).toBeNull();
    expect(phone.controlToken).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits
  });

  it("sends CORS for the allowed origin only, and refuses other pages before any route runs", async () => {
    const preflight = await fetch(`${phone.controlUrl}/input`, { method: "OPTIONS", headers: { origin: WEB, "access-control-request-method": "POST", "access-control-request-headers": "authorization" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(WEB);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
    const allowed = await fetch(`${phone.controlUrl}/state`, { headers: { origin: WEB, authorization: `Bearer ${phone.controlToken}` } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(WEB);
    const evil = "http://evil.example";
    const foreignPreflight = await fetch(`${phone.controlUrl}/input`, { method: "OPTIONS", headers: { origin: evil, "access-control-request-method": "POST" } });
    expect(foreignPreflight.status).toBe(403);
    expect(foreignPreflight.headers.get("access-control-allow-origin")).toBeNull();
    // even with the token (say, pasted into a page), another origin gets nothing
    const before = phone.engine.state().foreground;
    const foreign = await fetch(`${phone.controlUrl}/input`, { method: "POST", headers: { origin: evil, authorization: `Bearer ${phone.controlToken}`, "content-type": "application/json" }, body: JSON.stringify({ type: "launch", app: "settings" }) });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe("ORIGIN_NOT_ALLOWED");
    expect(phone.engine.state().foreground).toBe(before);
  });

  it("refuses a Host that is not a loopback name (a DNS-rebound page)", async () => {
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${phone.controlUrl}/state`, { headers: { host, authorization: `Bearer ${phone.controlToken}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
    expect(await status(`rebind.example:${phone.controlPort}`)).toBe(403);
    expect(await status(`localhost:${phone.controlPort}`)).toBe(200);
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

  it("lists a task's variants and starts and evaluates a task with a variant's params", async () => {
    await api("POST", "/scenario", { name: "social" });
    const listed = ((await api("GET", "/tasks")).body as { id: string; params: object; variants: object[] }[]).find((t) => t.id === "settings_connect_cafe")!;
    expect(listed).toMatchObject({ params: { ssid: "Cafe Guest" }, variants: [{ ssid: "Office" }] });
    const started = await api("POST", "/tasks/settings_connect_cafe/start", { seed: 1, variant: 1 });
    expect(started.body).toMatchObject({ task: "settings_connect_cafe", variant: 1, params: { ssid: "Office" }, goal: "Connect to the Wi-Fi network 'Office'." });
    phone.engine.runtime.writeRef("connectedSsid", "settings", "Cafe Guest");
    expect((await api("POST", "/tasks/settings_connect_cafe/evaluate", {})).body.score).toBe(0.5);
    phone.engine.runtime.writeRef("connectedSsid", "settings", "Office");
    expect((await api("POST", "/tasks/settings_connect_cafe/evaluate", {})).body.score).toBe(1);
    expect((await api("POST", "/tasks/settings_connect_cafe/start", {})).body).toMatchObject({ variant: 0, params: { ssid: "Cafe Guest" } });
    const missing = await api("POST", "/tasks/settings_connect_cafe/start", { variant: 2 });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "TASK_VARIANT_NOT_FOUND", message: expect.stringContaining("has no variant 2") });
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
    expect((await api("GET", "/faults")).body).toEqual({ slowMs: 0, failNext: null, frozen: false, secure: false });
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

  it("shows the app's window as secure (black screenshots) and back", async () => {
    await api("POST", "/reset", { seed: 1 });
    const seen = (await api("GET", "/screenshot")).body as Buffer;
    expect((await api("POST", "/faults", { secure: true })).body).toMatchObject({ secure: true });
    const black = (await api("GET", "/screenshot")).body as Buffer;
    expect(black.equals(seen)).toBe(false);
    expect((await api("DELETE", "/faults")).body).toMatchObject({ secure: false });
    expect(((await api("GET", "/screenshot")).body as Buffer).equals(seen)).toBe(true);
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
