// Every Device method against the virtual phone over TCP from Node (and the WebSocket and adb-server paths).
import { mkdtempSync } from "node:fs";
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AdbDevice } from "./adb-device.ts";
import { connectTcp } from "./connections/tcp.ts";
import { MemoryCredentialStore } from "./credentials/browser.ts";
import { adbPublicKeyLine, NodeCredentialStore } from "./credentials/node.ts";
import { AuthorizationTimeout, DeviceCommandFailed, DeviceDisconnected, DeviceTimeout } from "./errors.ts";
import { phashPng } from "./phash.ts";
import { centerOf, flattenUiTree } from "./ui-tree.ts";
import { byId, dismissPopups, tapId } from "./testing/phone-helpers.ts";
import { connectWebSocketNode } from "./node.ts";
import type { ConnectStatus } from "./connections/handshake.ts";

type SocialVars = { searchDraft: string; query: string; liked: string[] };
const social = (phone: VirtualPhone) => (phone.engine.state().apps as Record<string, { vars: SocialVars; actions: number }>).social!;
const state = (phone: VirtualPhone) => phone.engine.state() as { screen: string | null; popup: string | null; loading: boolean; ime: string; foreground: string; focusedWindow: string; actionCount: number };

/** A key the phone already lists in adb_keys (as a phone that allowed this computer does), and the phone's option for it. */
const trusted = new MemoryCredentialStore("device-tests@phoneloop");
const trustedKey = trusted.generateKey();
const adbKeys = async () => {
  const key = await trustedKey;
  return [adbPublicKeyLine(key.buffer, key.name ?? trusted.name)];
};

/** Resolves "hung" if `p` has not settled within `ms`: a bound on hanging, not a wall-clock measurement. */
function settlesWithin<T>(p: Promise<T>, ms: number): Promise<PromiseSettledResult<T> | "hung"> {
  return Promise.race([Promise.allSettled([p]).then((r) => r[0]!), new Promise<"hung">((r) => setTimeout(() => r("hung"), ms))]);
}

describe("Device over TCP against the virtual phone", () => {
  let phone: VirtualPhone;
  let device: AdbDevice;

  beforeAll(async () => {
    phone = await startVirtualPhone({ scenario: "social", seed: 1, adbPort: 0, adbKeys: await adbKeys() });
  });
  afterAll(async () => {
    await phone?.stop();
  });
  beforeEach(async () => {
    phone.engine.load("social", 1);
    device = new AdbDevice(await connectTcp({ port: phone.adbPort, credentialStore: trusted }));
  });
  afterEach(async () => {
    phone.engine.faults.slowMs = 0;
    await device.close();
  });

  it("info: model, serial, Android version, locale, screen, density, battery", async () => {
    const info = await device.info();
    expect(info).toEqual({
      serial: phone.serial,
      model: phone.engine.props["ro.product.model"],
      manufacturer: phone.engine.props["ro.product.manufacturer"],
      androidVersion: phone.engine.props["ro.build.version.release"],
      sdk: Number(phone.engine.props["ro.build.version.sdk"]),
      locale: phone.engine.props["persist.sys.locale"],
      screen: { width: 1080, height: 2400, density: 420 },
      battery: { level: expect.any(Number), charging: expect.any(Boolean) },
    });
    expect(info.battery!.level).toBeGreaterThan(0);
  });

  it("screenshot: the phone's own frame, as PNG bytes with its size", async () => {
    const shot = await device.screenshot();
    expect(shot.width).toBe(1080);
    expect(shot.height).toBe(2400);
    expect(Buffer.from(shot.png).equals(await phone.engine.screenshot())).toBe(true);
    expect(shot.capturedAt).toBeGreaterThan(0);
  });

  it("uiTree and foreground: the update dialog over the feed of com.phoneloop.social", async () => {
    const tree = await device.uiTree();
    const later = byId(tree, "update_later");
    expect(later).toMatchObject({ text: "Later", clickable: true, className: "android.widget.Button", packageName: "com.phoneloop.social" });
    expect(later!.bounds.right).toBeGreaterThan(later!.bounds.left);
    expect(flattenUiTree(tree).some((n) => n.text === "Update available")).toBe(true);
    const fg = await device.foreground();
    expect(`${fg.packageName}/${fg.activity}`).toBe(state(phone).focusedWindow);
    expect(fg).toEqual({ packageName: "com.phoneloop.social", activity: "com.phoneloop.social.MainActivity" });
  });

  it("tap dismisses the dialog; typeText types ASCII with shell metacharacters exactly; key(delete) erases", async () => {
    await tapId(device, "update_later");
    expect(state(phone).popup).toBeNull();
    await tapId(device, "action_search");
    expect((await device.foreground()).activity).toBe("com.phoneloop.social.search.SearchActivity");
    const text = `it's 100% "odd" $HOME \`id\` & a;b | c %s > d`;
    await device.typeText(text);
    expect(social(phone).vars.searchDraft).toBe(text);
    for (let i = 0; i < 4; i++) await device.key("delete");
    expect(social(phone).vars.searchDraft).toBe(text.slice(0, -4));
  });

  it("typeText sends Chinese through ADBKeyboard and gives the user's keyboard back", async () => {
    await tapId(device, "update_later");
    await tapId(device, "action_search");
    const before = state(phone).ime;
    await device.typeText("手机智能体 mobile AI 🚀");
    expect(social(phone).vars.searchDraft).toBe("手机智能体 mobile AI 🚀");
    expect(state(phone).ime).toBe(before);
  });

  it("key(enter) submits; waitForStable waits out the 700 ms loading skeleton instead of a fixed sleep", async () => {
    await tapId(device, "update_later");
    await tapId(device, "action_search");
    await device.typeText("mobile ai agents");
    await device.key("enter");
    expect(state(phone).screen).toBe("results");
    expect(state(phone).loading).toBe(true);
    const r = await device.waitForStable({ timeoutMs: 5_000 });
    expect(r.stable).toBe(true);
    expect(state(phone).loading).toBe(false);
    expect(byId(await device.uiTree(), "results_list")).toBeDefined();
  });

  it("scroll, swipe and drag move the list; the screen changes and comes back", async () => {
    await tapId(device, "update_later");
    const top = await phashPng((await device.screenshot()).png);
    const firstText = () => device.uiTree().then((t) => flattenUiTree(t).filter((n) => n.text).map((n) => n.text).join("|"));
    const atTop = await firstText();
    await device.scroll("down");
    const scrolled = await firstText();
    expect(scrolled).not.toBe(atTop);
    expect(await phashPng((await device.screenshot()).png)).not.toBe(top);
    await device.scroll("up");
    expect(await firstText()).toBe(atTop);
    await device.swipe({ x: 540, y: 1800 }, { x: 540, y: 900 }, 300);
    expect(await firstText()).not.toBe(atTop);
    await device.drag({ x: 540, y: 900 }, { x: 540, y: 1800 }, 400);
    expect(await firstText()).toBe(atTop);
  });

  it("doubleTap lands two taps, longPress presses and holds (opens the post)", async () => {
    await tapId(device, "update_later");
    const before = state(phone).actionCount;
    const tree = await device.uiTree();
    const body = flattenUiTree(tree).find((n) => n.text.startsWith("Shipped our offline-first"));
    expect(body).toBeDefined();
    await device.longPress(centerOf(body!.bounds), 600);
    expect(state(phone).screen).toBe("post");
    await dismissPopups(device);
    const like = byId(await device.uiTree(), "like")!;
    const actions = state(phone).actionCount;
    await device.doubleTap(centerOf(like.bounds));
    expect(state(phone).actionCount).toBe(actions + 2);
    expect(social(phone).vars.liked).toEqual([]); // like, then unlike on the same spot
    expect(actions).toBeGreaterThan(before);
  });

  it("key back and home; openApp brings the app back; a missing app is explained", async () => {
    await tapId(device, "update_later");
    await tapId(device, "action_search");
    await device.key("back");
    await device.key("back"); // closes the keyboard on a phone, or the screen
    await device.key("home");
    expect((await device.foreground()).packageName).toBe("com.google.android.apps.nexuslauncher");
    await device.openApp("com.phoneloop.social");
    expect((await device.foreground()).packageName).toBe("com.phoneloop.social");
    const e = await device.openApp("com.example.notinstalled").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DeviceCommandFailed);
    expect((e as Error).message).toMatch(/installed/);
  });

  it("openDeeplink opens the results for a query; an unhandled link is explained", async () => {
    await device.openDeeplink("loop://search?q=mobile%20AI%20agents");
    expect(state(phone).screen).toBe("results");
    expect(social(phone).vars.query.toLowerCase()).toContain("mobile");
    const e = await device.openDeeplink("nothandled://x").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DeviceCommandFailed);
  });

  it("every call has a timeout: a slow phone gives DeviceTimeout, and the device still works after", async () => {
    phone.engine.faults.slowMs = 2_000;
    const e = await device.foreground({ timeoutMs: 150 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DeviceTimeout);
    phone.engine.faults.slowMs = 0;
    expect((await device.foreground()).packageName).toBe("com.phoneloop.social");
  });

  it("invalid arguments are refused before anything is sent", async () => {
    expect(() => device.tap({ x: Number.NaN, y: 1 })).toThrow(RangeError);
    expect(() => device.openApp("not a package")).toThrow(RangeError);
    expect(() => device.openDeeplink("no scheme")).toThrow(RangeError);
  });
});

/** A TCP proxy we can cut, like pulling the cable mid-transfer. */
/** A TCP proxy to the phone that can pull the cable at an exact byte of the phone's output. */
async function cuttableProxy(targetPort: number) {
  const sockets = new Set<Socket>();
  let bytesFromPhone = 0;
  let cutAt = Infinity;
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  const server: Server = createServer((client) => {
    const upstream = netConnect({ port: targetPort, host: "127.0.0.1" });
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on("data", (d: Buffer) => {
      if (bytesFromPhone + d.length < cutAt) {
        bytesFromPhone += d.length;
        client.write(d);
        return;
      }
      // Forward up to the cut byte, then pull the cable: the transfer stops mid-stream, never after it ended.
      const keep = cutAt - bytesFromPhone;
      bytesFromPhone = cutAt;
      client.write(d.subarray(0, keep), cut);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    port: (server.address() as { port: number }).port,
    /** Pulls the cable once `n` more bytes came from the phone. */
    cutAfter(n: number) {
      cutAt = bytesFromPhone + n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe("losing the phone", () => {
  let phone: VirtualPhone;
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  beforeAll(async () => {
    phone = await startVirtualPhone({ adbPort: 0, adbKeys: await adbKeys() });
    process.on("unhandledRejection", onUnhandled);
  });
  afterAll(async () => {
    process.off("unhandledRejection", onUnhandled);
    await phone.stop();
  });

  it("a cable pull in the middle of a screenshot fails every pending call with one DeviceDisconnected within 2 s", async () => {
    const proxy = await cuttableProxy(phone.adbPort);
    const device = new AdbDevice(await connectTcp({ port: proxy.port, credentialStore: trusted }));
    await device.info();
    // The frame screencap will send is larger than the cut point, so the cut lands inside the first transfer.
    expect((await phone.engine.screenshot()).length).toBeGreaterThan(64 * 1024);
    proxy.cutAfter(32 * 1024);
    const shot = device.screenshot();
    const tree = device.screenshot({ timeoutMs: 30_000 }); // a second transfer on the same connection, also cut
    const [a, b] = await Promise.all([settlesWithin(shot, 2_000), settlesWithin(tree, 2_000)]);
    expect(a).not.toBe("hung");
    expect(b).not.toBe("hung");
    const ea = (a as PromiseRejectedResult).reason;
    expect(ea).toBeInstanceOf(DeviceDisconnected);
    expect((b as PromiseRejectedResult).reason).toBe(ea);
    await expect(device.tap({ x: 1, y: 1 })).rejects.toBe(ea);
    expect(ea.message).toMatch(/disconnected/i);
    await device.close();
    await proxy.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(unhandled).toEqual([]);
  });

  it("the phone dropping the connection (control API fault) during a screenshot does the same", async () => {
    const device = new AdbDevice(await connectTcp({ port: phone.adbPort, credentialStore: trusted }));
    phone.engine.faults.slowMs = 300;
    const shot = device.screenshot();
    await new Promise((r) => setTimeout(r, 50));
    phone.engine.dropConnections();
    const r = await settlesWithin(shot, 2_000);
    phone.engine.faults.slowMs = 0;
    expect(r).not.toBe("hung");
    expect((r as PromiseRejectedResult).reason).toBeInstanceOf(DeviceDisconnected);
    expect(device.isConnected).toBe(false);
    await device.close();
    expect(unhandled).toEqual([]);
  });
});

describe("draining a lagging phone", () => {
  it("a tap whose connection closed before it landed: drain() waits until the phone ran it, then settles on the screen after it", async () => {
    const phone = await startVirtualPhone({ adbPort: 0, adbKeys: await adbKeys(), latency: "lagging" });
    try {
      const sender = new AdbDevice(await connectTcp({ port: phone.adbPort, credentialStore: trusted }));
      const before = state(phone).actionCount;
      const tap = sender.tap({ x: 540, y: 1200 }).catch(() => undefined);
      // The sender goes away while the phone is still carrying out its tap.
      await new Promise((r) => setTimeout(r, 300));
      await sender.close();
      await tap;
      const reader = new AdbDevice(await connectTcp({ port: phone.adbPort, credentialStore: trusted }));
      try {
        expect(state(phone).actionCount).toBe(before);
        const drained = await reader.drain({ stable: { checkLoadingIndicators: false } });
        expect(drained).toMatchObject({ drained: true, checked: true, running: [] });
        // The tap landed before the drain answered, and the settled screen is the one after it.
        expect(state(phone).actionCount).toBe(before + 1);
        expect(drained.settled?.stable).toBe(true);
        expect(Buffer.from(drained.settled!.screenshot.png).equals(Buffer.from(await phone.engine.screenshot()))).toBe(true);
      } finally {
        await reader.close();
      }
    } finally {
      await phone.stop();
    }
  }, 30_000);
});

describe("other connections and authorization", () => {
  it("WebSocket carrying the adbd byte stream", async () => {
    const phone = await startVirtualPhone({ wsPort: 0, adbKeys: await adbKeys() });
    try {
      const device = new AdbDevice(await connectWebSocketNode({ url: phone.wsUrl, credentialStore: trusted }));
      expect((await device.info()).serial).toBe(phone.serial);
      expect((await device.screenshot()).width).toBe(1080);
      expect((await device.foreground()).packageName).toBe("com.phoneloop.social");
      await device.close();
    } finally {
      await phone.stop();
    }
  });

  it("asks for authorization once, remembers the key file, and bounds the wait with a retryable timeout", async () => {
    const phone = await startVirtualPhone(); // asks about every key it does not list, as phones do
    const dir = mkdtempSync(join(tmpdir(), "phoneloop-adbkey-"));
    const store = new NodeCredentialStore({ path: join(dir, "adbkey"), name: "test@phoneloop" });
    try {
      // Nobody answers the prompt: the wait is reported, then ends with AuthorizationTimeout naming the fix.
      const statuses: ConnectStatus["kind"][] = [];
      const e = await connectTcp({ port: phone.adbPort, credentialStore: store, authorizationTimeoutMs: 300, onStatus: (s) => statuses.push(s.kind) }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AuthorizationTimeout);
      expect((e as Error).message).toMatch(/Allow/);
      expect(statuses).toContain("waiting_for_authorization");
      // Retry; the user taps Allow on the phone.
      const second: ConnectStatus["kind"][] = [];
      const connecting = connectTcp({
        port: phone.adbPort,
        credentialStore: store,
        onStatus: (s) => {
          second.push(s.kind);
          if (s.kind === "waiting_for_authorization") setTimeout(() => phone.keyStore.answer("accept", { always: true }), 20);
        },
      });
      const device = new AdbDevice(await connecting);
      expect(second).toContain("waiting_for_authorization");
      expect((await device.info()).serial).toBe(phone.serial);
      await device.close();
      // Third time: the stored key is already trusted, no prompt.
      const third: ConnectStatus["kind"][] = [];
      const again = new AdbDevice(await connectTcp({ port: phone.adbPort, credentialStore: new NodeCredentialStore({ path: join(dir, "adbkey") }), onStatus: (s) => third.push(s.kind) }));
      expect(third).not.toContain("waiting_for_authorization");
      expect(third).toContain("connected");
      await again.close();
    } finally {
      await phone.stop();
    }
  });
});
