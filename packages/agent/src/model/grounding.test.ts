import { describe, expect, it } from "vitest";
import { adapterFor } from "./adapters/index.ts";
import { groundingAsk, groundingMessages, groundingScore, groundingTap } from "./grounding.ts";

const screen = { width: 1080, height: 2400 };
const box = { left: 0, top: 600, right: 1080, bottom: 760 };

describe("the grounding check's model side", () => {
  it("asks with the screenshot and no element list, so the model must find the target in the pixels", () => {
    const m = groundingMessages({ bytes: new Uint8Array([1, 2, 3]), mime: "image/png", width: 1080, height: 2400 }, { instruction: 'Tap the "Display" row.', box }, "com.android.settings");
    const user = m[1]!.content as { type: string; text?: string }[];
    expect(user[0]!.text).toContain('TODO: Tap the "Display" row.');
    expect(user[0]!.text).toContain("no elements in the UI tree; use the screenshot");
    expect(user.some((p) => p.type === "image")).toBe(true);
  });

  it("reads a tap in the 0–1000 frame as device pixels (the runtime's mapping), and scores its distance from the centre", () => {
    const tap = groundingTap('{"type":"click","x":500,"y":283}', screen);
    expect(tap).toEqual({ ok: true, x: 540, y: 679, action: "click" });
    if (!tap.ok) throw new Error("unreachable");
    expect(groundingScore(tap, box)).toEqual({ distancePx: 1, inside: true });
    expect(groundingScore({ x: 540, y: 200 }, box)).toEqual({ distancePx: 480, inside: false });
  });

  it("a reply that is no tap says why, and never throws", () => {
    expect(groundingTap('{"type":"navigate_back"}', screen)).toMatchObject({ ok: false, message: expect.stringContaining("navigate_back, not a tap") });
    expect(groundingTap('{"type":"click","element":"3"}', screen)).toMatchObject({ ok: false, message: expect.stringContaining("must point in the image") });
    expect(groundingTap("I would tap Display.", screen)).toMatchObject({ ok: false });
    for (const junk of ["", "{", "\u0000", "x".repeat(100_000)]) expect(groundingTap(junk, screen).ok).toBe(false);
  });

  it("with the executor's adapter it asks in that family's format and reads its reply in its frame as device pixels", () => {
    const image = { bytes: new Uint8Array([1, 2, 3]), mime: "image/png" as const, width: 1080, height: 2400 };
    const uiTars = adapterFor("ui-tars", "1.5")!;
    const ask = groundingAsk(image, { instruction: 'Tap the "Display" row.', box }, "com.android.settings", uiTars);
    expect(JSON.stringify(ask.messages)).toContain("Action:");
    expect(JSON.stringify(ask.messages)).toContain('Tap the \\"Display\\" row.');
    // UI-TARS 1.5 points in pixels of the image after its smart resize (1092 × 2408 for this screen).
    const tap = groundingTap("Thought: the Display row.\nAction: click(point='<point>546 682</point>')", screen, uiTars);
    expect(tap).toEqual({ ok: true, x: 540, y: 680, action: "click" });
    // The same reply read in the product's 0–1000 frame lands far off the row; a phoneloop reply is no UI-TARS action.
    expect(groundingTap("Thought: the Display row.\nAction: click(point='<point>546 682</point>')", screen)).toMatchObject({ ok: true, y: 1636 });
    expect(groundingTap('{"type":"click","x":500,"y":283}', screen, uiTars)).toMatchObject({ ok: false, message: expect.stringContaining("UI-TARS adapter") });
    // A tool-calls adapter offers its tools; phoneloop asks with the product's own prompt and no tools.
    expect(groundingAsk(image, { instruction: "Tap it.", box }, "app", adapterFor("tool-calls")).tools?.length).toBeGreaterThan(0);
    expect(groundingAsk(image, { instruction: "Tap it.", box }, "app", adapterFor("phoneloop"))).toEqual({ messages: groundingMessages(image, { instruction: "Tap it.", box }, "app") });
  });
});
