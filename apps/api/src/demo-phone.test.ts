// The shared demo phone over HTTP: demoPhone.allowBrowser answers "Allow USB debugging?" only for the key the asking
// tab named (its own random tag), so an admin of another workspace cannot allow a key waiting for someone else.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adbGeneratePublicKey } from "@yume-chan/adb";
import { createApiClient } from "@phoneloop/client";
import { parseAdbPublicKey, startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { signUpMember, type SignedUpMember } from "./auth/testing.ts";
import type { DemoPhoneControl } from "./demo-phone.ts";

const t = useTestDatabase();
let phone: VirtualPhone;
// Filled once the phone listens, before the API server starts (its hooks are registered after this one).
const demoPhone: DemoPhoneControl = { url: "", token: "" };
beforeAll(async () => {
  phone = await startVirtualPhone({ adbPort: 0, wsPort: 0, controlPort: 0 });
  Object.assign(demoPhone, { url: phone.controlUrl, token: phone.controlToken });
});
afterAll(async () => {
  await phone.stop();
});
const api = useApiServer(t, { demoPhone });

/** A browser's key as it reaches the phone: an RSA key in Android's format with the name its tab gave it. */
function browserKey(name: string) {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const publicKey = Buffer.from(adbGeneratePublicKey(new Uint8Array(privateKey.export({ type: "pkcs8", format: "der" })))).toString("base64");
  return parseAdbPublicKey(Buffer.from(`${publicKey} ${name}\0`));
}
const tagged = () => `PhoneLoop@127.0.0.1 ${randomBytes(16).toString("base64url")}`;
const as = (m: SignedUpMember) => createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: m.headers.cookie! } });

describe("demoPhone.allowBrowser", () => {
  it("allows only the asking tab's key: another workspace's admin cannot allow a key waiting for someone else", async () => {
    const alice = await signUpMember({ db: t.db, auth: api.auth }, { role: "operator" });
    const mallory = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const aliceName = tagged();
    const malloryName = tagged();
    // Both tabs' keys wait on the phone's prompt.
    const aliceAnswer = phone.keyStore.ask(browserKey(aliceName));
    const malloryAnswer = phone.keyStore.ask(browserKey(malloryName));
    expect(phone.keyStore.listPending().map((p) => p.name).sort()).toEqual([aliceName, malloryName].sort());

    // Mallory's click allows Mallory's key and nothing else.
    expect(await as(mallory).demoPhone.allowBrowser.mutate({ keyName: malloryName })).toEqual({ allowed: true, keys: 1 });
    expect(await malloryAnswer).toBe("accept");
    expect(phone.keyStore.listPending().map((p) => p.name)).toEqual([aliceName]);
    // A name no key waits with allows nothing, and one without a random tag is refused.
    expect(await as(mallory).demoPhone.allowBrowser.mutate({ keyName: tagged() })).toMatchObject({ allowed: false, reason: expect.stringMatching(/not waiting.*connect again/) });
    await expect(as(mallory).demoPhone.allowBrowser.mutate({ keyName: "PhoneLoop@127.0.0.1" })).rejects.toMatchObject({ data: { httpStatus: 400 } });
    expect(phone.keyStore.listPending().map((p) => p.name)).toEqual([aliceName]);

    expect(await as(alice).demoPhone.allowBrowser.mutate({ keyName: aliceName })).toEqual({ allowed: true, keys: 1 });
    expect(await aliceAnswer).toBe("accept");
    expect(phone.keyStore.listPending()).toEqual([]);
  });
});
