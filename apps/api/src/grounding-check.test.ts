// "Check grounding" over the real API: the executor's endpoint is shown one real screenshot of the demo phone's
// Settings (no element list) and asked to tap the Display row; its reply comes back as a tap in device pixels with
// its distance from the row's centre. A scripted vision model answers: on target, off target, with no tap at all,
// and refusing the key — each said in words, the key never shown; only admins may run it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { createApiClient } from "@phoneloop/client";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { signUpMember, type SignedUpMember } from "./auth/testing.ts";

const KEY = "sk-grounding-test-5c1a";
const t = useTestDatabase();
const api = useApiServer(t);
let models: ScriptedModelServer;
let admin: SignedUpMember;
let viewer: SignedUpMember;
/** What the scripted executor answers next (the rules read it per request). */
let answer = '{"type":"click","x":500,"y":300}';

beforeAll(async () => {
  models = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "refused", replies: [{ status: 401, message: `invalid key ${KEY}` }], repeatLast: true },
      { match: (r) => r.model === "vision", replies: [() => ({ text: answer })], repeatLast: true },
    ],
  });
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  viewer = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: admin.workspaceId });
});
afterAll(async () => {
  await models.stop();
});

const as = (m: SignedUpMember) => createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: m.headers.cookie! } });

describe("Check grounding", () => {
  it("with no endpoint saved it says the demo model reads the tree, not pixels", async () => {
    const r = await as(admin).modelSettings.checkGrounding.mutate({});
    expect(r).toMatchObject({ demo: true, tap: null, screenshot: null });
    expect(r.message).toMatch(/reads the UI tree, not pixels/);
  });

  it("shows the model the demo phone's screenshot without an element list and reads its tap back in device pixels, with its distance", async () => {
    await as(admin).modelSettings.set.mutate({ baseUrl: models.baseURL, apiKey: KEY, models: { executor: "vision" } });
    const before = models.requests.length;
    const first = await as(admin).modelSettings.checkGrounding.mutate({});
    const asked = models.requests.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.imageCount).toBe(1);
    expect(asked[0]!.lastUserText).toContain('Tap the "Display" row.');
    expect(asked[0]!.lastUserText).toContain("no elements in the UI tree");
    expect(asked[0]!.authorization).toBe(`Bearer ${KEY}`);
    const { screenshot, target } = first;
    expect(screenshot).toMatchObject({ width: 1080, height: 2400 });
    expect(Buffer.from(screenshot!.base64, "base64").subarray(1, 4).toString()).toBe("PNG");
    const box = target!.box;
    expect(box.right).toBeGreaterThan(box.left);

    // Aim at the row's centre in the 0–1000 frame: the tap lands inside, within a pixel of the centre.
    const cx = (box.left + box.right) / 2;
    const cy = (box.top + box.bottom) / 2;
    answer = JSON.stringify({ type: "click", x: (cx / 1079) * 1000, y: (cy / 2399) * 1000 });
    const hit = await as(admin).modelSettings.checkGrounding.mutate({});
    expect(hit).toMatchObject({ demo: false, model: "vision", inside: true });
    expect(hit.distancePx).toBeLessThanOrEqual(1);
    expect(hit.message).toMatch(/tapped \d px from the centre of the "Display" row, inside the target/);

    // Off target: the top of the screen.
    answer = '{"type":"click","x":500,"y":10}';
    const miss = await as(admin).modelSettings.checkGrounding.mutate({});
    expect(miss.tap).toEqual({ x: 540, y: 24 });
    expect(miss.inside).toBe(false);
    expect(miss.distancePx).toBe(Math.round(Math.hypot(540 - cx, 24 - cy)));
    expect(miss.message).toMatch(/outside the target/);

    // No tap: said in words, with the reply shown.
    answer = "I cannot see a Display row.";
    const none = await as(admin).modelSettings.checkGrounding.mutate({});
    expect(none).toMatchObject({ tap: null, distancePx: null, reply: "I cannot see a Display row." });
    expect(none.message).toMatch(/answered, but not with a tap/);
  });

  it("a refused key is explained without the key; viewers may not run it", async () => {
    await as(admin).modelSettings.set.mutate({ baseUrl: models.baseURL, apiKey: KEY, models: { executor: "refused" } });
    const r = await as(admin).modelSettings.checkGrounding.mutate({});
    expect(r.tap).toBeNull();
    expect(r.message).toMatch(/answered 401/);
    expect(JSON.stringify(r)).not.toContain(KEY);
    await expect(as(viewer).modelSettings.checkGrounding.mutate({})).rejects.toThrow(/FORBIDDEN|not allowed|admin/i);
  });
});
