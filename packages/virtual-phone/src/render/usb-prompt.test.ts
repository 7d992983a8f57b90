// "Allow USB debugging?" is the system UI's dialog: title, the key's fingerprint, "Always allow from this computer",
// Cancel/Allow, and the focused window is the system UI's. Allow without the checkbox lets in this connection only.
import { afterEach, describe, expect, it } from "vitest";
import { Adb, AdbDaemonTransport } from "@yume-chan/adb";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { NodeCredentialStore, tcpConnection } from "../conformance/yume-connection.ts";
import { center, find, parseDump } from "../testing.ts";
import { Shell } from "../shell/interpreter.ts";
import { createCommandRegistry } from "../shell/commands/index.ts";

let phone: VirtualPhone | null = null;
afterEach(async () => {
  await phone?.stop();
  phone = null;
});

/** Starts an authenticating connection; it completes once Allow is tapped (Cancel leaves it unauthorized). */
async function connect(p: VirtualPhone, store: NodeCredentialStore) {
  const connection = await tcpConnection(p.adbPort);
  const transport = AdbDaemonTransport.authenticate({ serial: "t", connection, credentialStore: store });
  transport.catch(() => {}); // a cancelled prompt leaves it waiting until the socket closes
  return { connection, transport };
}

async function promptShown(p: VirtualPhone): Promise<void> {
  // the key arrives over the socket: wait for the phone to put the prompt up (no timing assumed)
  while (!p.engine.systemUi.usbPrompt) await new Promise((r) => setImmediate(r));
}

async function focusLine(p: VirtualPhone): Promise<string> {
  const sh = new Shell({ fs: p.engine.fs, phone: p.engine }, createCommandRegistry());
  const out: Buffer[] = [];
  await sh.run("dumpsys window | grep mCurrentFocus", { out: (d) => out.push(d), err: () => {} });
  return Buffer.concat(out).toString();
}

describe("the USB debugging prompt", () => {
  it("shows every part of Android's dialog in the UI tree, focused as the system UI, over the app", async () => {
    phone = await startVirtualPhone({ scenario: "settings" });
    const { connection } = await connect(phone, new NodeCredentialStore());
    await promptShown(phone);
    const fingerprint = phone.keyStore.listPending()[0]!.fingerprint;
    const nodes = parseDump(phone.engine.uiDump());
    expect(nodes.every((n) => n.attrs.package === "com.android.systemui")).toBe(true);
    expect(find(phone.engine, "alertTitle").text).toBe("Allow USB debugging?");
    expect(find(phone.engine, "message").text).toBe(`The computer's RSA key fingerprint is:\n${fingerprint}`);
    const always = find(phone.engine, "alwaysUse");
    expect(always).toMatchObject({ text: "Always allow from this computer", cls: "android.widget.CheckBox" });
    expect(always.attrs).toMatchObject({ checkable: "true", checked: "false", clickable: "true" });
    expect(find(phone.engine, "button2").text).toBe("Cancel");
    expect(find(phone.engine, "button1").text).toBe("Allow");
    expect(await focusLine(phone)).toContain("com.android.systemui/com.android.systemui.usb.UsbDebuggingActivity");
    phone.engine.tap(...center(find(phone.engine, "Cancel")));
    expect(phone.engine.systemUi.usbPrompt).toBeNull();
    expect(phone.keyStore.accepted.size).toBe(0);
    connection.destroy();
    expect(await focusLine(phone)).toContain("com.android.settings/");
  });

  it("Allow with 'Always allow' ticked remembers the key; without it the key is good for this connection only", async () => {
    phone = await startVirtualPhone({ scenario: "settings" });
    const remembered = new NodeCredentialStore("remembered@test");
    const once = new NodeCredentialStore("once@test");

    const first = (await connect(phone, remembered)).transport;
    await promptShown(phone);
    phone.engine.tap(...center(find(phone.engine, "alwaysUse")));
    expect(find(phone.engine, "alwaysUse").attrs.checked).toBe("true");
    phone.engine.tap(...center(find(phone.engine, "Allow")));
    const adb = new Adb(await first);
    expect(phone.keyStore.accepted.size).toBe(1);
    await adb.close();

    const second = (await connect(phone, once)).transport;
    await promptShown(phone);
    expect(find(phone.engine, "alwaysUse").attrs.checked).toBe("false");
    phone.engine.tap(...center(find(phone.engine, "Allow")));
    const adb2 = new Adb(await second);
    expect(await adb2.subprocess.noneProtocol!.spawnWaitText("echo ok")).toBe("ok\n");
    expect(phone.keyStore.accepted.size).toBe(1);
    await adb2.close();
  });
});
