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

  it("asks and reads with the executor's adapter from the model settings: a UI-TARS 1.5 reply in its resized image's pixels taps the row", async () => {
    await as(admin).modelSettings.set.mutate({ baseUrl: models.baseURL, apiKey: KEY, models: { executor: "vision" }, adapters: { executor: { id: "ui-tars", version: "1.5" } } });
    expect((await as(viewer).modelSettings.get.query({}))?.adapters).toEqual({ executor: { id: "ui-tars", version: "1.5" } });
    expect((await as(viewer).modelSettings.status.query({})).adapters).toEqual({ executor: { id: "ui-tars", version: "1.5" } });
    const before = models.requests.length;
    answer = "Thought: the Display row.\nAction: click(point='<point>0 0</point>')";
    const first = await as(admin).modelSettings.checkGrounding.mutate({});
    expect(models.requests[before]!.system).toContain("Action:");
    const box = first.target!.box;
    // UI-TARS 1.5 points in pixels of the image after its smart resize: 1092 × 2408 for the 1080 × 2400 screen.
    const x = Math.round((((box.left + box.right) / 2) * 1091) / 1079);
    const y = Math.round((((box.top + box.bottom) / 2) * 2407) / 2399);
    answer = `Thought: 点击显示。\nAction: click(point='<point>${x} ${y}</point>')`;
    const hit = await as(admin).modelSettings.checkGrounding.mutate({});
    expect(hit).toMatchObject({ adapter: { id: "ui-tars", version: "1.5" }, inside: true });
    expect(hit.distancePx).toBeLessThanOrEqual(1);
    // The product's JSON is no UI-TARS action: said in the adapter's words.
    answer = '{"type":"click","x":500,"y":300}';
    expect((await as(admin).modelSettings.checkGrounding.mutate({})).message).toMatch(/not an action the UI-TARS adapter can read/);
    // null: back to the product's own language.
    await as(admin).modelSettings.set.mutate({ baseUrl: models.baseURL, models: { executor: "vision" }, adapters: { executor: null } });
    expect(await as(admin).modelSettings.checkGrounding.mutate({})).toMatchObject({ adapter: null, tap: { x: 540 } });
  });

  it("refuses an adapter the runtime does not have, naming the field; a viewer may not set one; the presets name adapters it has", async () => {
    const bad = as(admin).modelSettings.set.mutate({ baseUrl: models.baseURL, models: { executor: "vision" }, adapters: { executor: { id: "ui-tars", version: "7" } } });
    await expect(bad).rejects.toThrow(/settings\.adapters\.executor: "ui-tars 7" is not an adapter the runtime has/);
    await expect(as(viewer).modelSettings.set.mutate({ baseUrl: models.baseURL, models: {}, adapters: { executor: { id: "ui-tars", version: "1.5" } } })).rejects.toThrow(/FORBIDDEN|not allowed|admin/i);
    expect((await as(viewer).modelSettings.get.query({}))?.adapters).toEqual({});
    const presets = await as(viewer).modelSettings.presets.query({});
    expect(presets.find((p) => p.id === "ui-tars-1.5-7b")).toMatchObject({ adapter: { id: "ui-tars", version: "1.5" }, prices: { input: 0, output: 0 }, frame: "absolute pixels of the resized image", imageRule: expect.stringContaining("smart resize") });
  });
});
