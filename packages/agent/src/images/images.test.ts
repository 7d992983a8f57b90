import { describe, expect, it } from "vitest";
import { createCanvas } from "@napi-rs/canvas";
import { fitLongSide, prepareScreenshot, toBase64 } from "./index.ts";
import { nodeImages } from "./node.ts";
import { phash, hammingDistance, PHASH_SIZE } from "../detectors/phash.ts";
import { countImageTokens, countRequestTokens, countTextTokens } from "../model/tokens.ts";

function png(draw: (g: ReturnType<ReturnType<typeof createCanvas>["getContext"]>) => void, w = 1080, h = 2400): Uint8Array {
  const c = createCanvas(w, h);
  const g = c.getContext("2d");
  draw(g);
  return new Uint8Array(c.toBuffer("image/png"));
}

describe("images", () => {
  it("base64 matches Node's encoder for every tail length", () => {
    for (const n of [0, 1, 2, 3, 4, 5, 1000, 47_001]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 37 + 11) % 256);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
    }
  });

  it("fits the long side without upscaling", () => {
    expect(fitLongSide(1080, 2400, 1024)).toEqual({ width: 461, height: 1024 });
    expect(fitLongSide(2400, 1080, 1024)).toEqual({ width: 1024, height: 461 });
    expect(fitLongSide(500, 800, 1024)).toEqual({ width: 500, height: 800 });
  });

  it("downscales a 1080×2400 screenshot to 1024 px long side as JPEG, with a stable pHash", async () => {
    const shot = png((g) => {
      g.fillStyle = "#fff";
      g.fillRect(0, 0, 1080, 2400);
      g.fillStyle = "#1d9bf0";
      g.fillRect(100, 300, 880, 400);
    });
    const a = await prepareScreenshot(nodeImages, shot, {});
    expect(a.forModel).toMatchObject({ mime: "image/jpeg", width: 461, height: 1024 });
    expect([...a.forModel.bytes.slice(0, 2)]).toEqual([0xff, 0xd8]);
    const b = await prepareScreenshot(nodeImages, shot, { longSide: 512, mime: "image/png" });
    expect(b.forModel).toMatchObject({ mime: "image/png", width: 230, height: 512 });
    expect([...b.forModel.bytes.slice(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    // The same frame hashes the same; a different layout does not.
    expect((await prepareScreenshot(nodeImages, shot, {})).phash).toBe(a.phash);
    const other = png((g) => {
      g.fillStyle = "#fff";
      g.fillRect(0, 0, 1080, 2400);
      g.fillStyle = "#1d9bf0";
      g.fillRect(100, 1500, 880, 800);
    });
    expect(hammingDistance(a.phash, (await prepareScreenshot(nodeImages, other, {})).phash)).toBeGreaterThan(8);
  });
});

describe("pHash", () => {
  const gray = (f: (x: number, y: number) => number) => {
    const data = new Uint8Array(PHASH_SIZE * PHASH_SIZE);
    for (let y = 0; y < PHASH_SIZE; y++) for (let x = 0; x < PHASH_SIZE; x++) data[y * PHASH_SIZE + x] = f(x, y);
    return { width: PHASH_SIZE, height: PHASH_SIZE, data };
  };
  it("is 64 bits, robust to brightness shifts and small noise, and separates different layouts", () => {
    // A "screen": a gradient with a bright card and a dark bar.
    const scene = (x: number, y: number) => 60 + x * 2 + y * 1.5 + (x > 6 && x < 26 && y > 8 && y < 18 ? 60 : 0) - (y > 26 ? 50 : 0);
    const h = phash(gray((x, y) => Math.round(scene(x, y))));
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(hammingDistance(h, phash(gray((x, y) => Math.round(scene(x, y)) + 20)))).toBeLessThanOrEqual(1);
    expect(hammingDistance(h, phash(gray((x, y) => Math.round(scene(x, y)) + ((x * 7 + y * 13) % 3))))).toBeLessThanOrEqual(4);
    expect(hammingDistance(h, phash(gray((x, y) => Math.round(scene(31 - y, x)))))).toBeGreaterThan(10);
  });
  it("hashes any size by area-averaging to 32×32: a 2× upscale hashes like the original", () => {
    const scene = (x: number, y: number) => (x > 6 && x < 26 && y > 8 && y < 18 ? 200 : 40) + x;
    const small = gray((x, y) => scene(x, y));
    const big = { width: 64, height: 64, data: new Uint8Array(64 * 64) };
    for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) big.data[y * 64 + x] = scene(x >> 1, y >> 1);
    expect(phash(big)).toBe(phash(small));
  });
});

describe("tokens", () => {
  it("counts text with the o200k tokenizer", () => {
    expect(countTextTokens("hello world")).toBe(2);
    expect(countTextTokens("")).toBe(0);
    expect(countTextTokens("手机智能体")).toBeGreaterThan(1);
    expect(countTextTokens("手机智能体 搜索 'mobile AI agents'")).toBe(10);
    // A special token's text on a screen is counted as the text it is, never refused.
    expect(countTextTokens("Tap <|endoftext|> then <|im_start|>")).toBe(15);
  });
  it("counts images with the provider formulas", () => {
    expect(countImageTokens(461, 1024)).toBe(85 + 170 * 2);
    expect(countImageTokens(1080, 2400)).toBe(85 + 170 * 2 * 4);
    expect(countImageTokens(512, 512)).toBe(255);
    expect(countImageTokens(1080, 2400, "openai-low")).toBe(85);
    expect(countImageTokens(461, 1024, "qwen-vl")).toBe(17 * 37 + 2);
  });
  it("counts a request as sent: messages, text and image", () => {
    const r = countRequestTokens([
      { role: "system", content: "You operate a phone." },
      { role: "user", content: [{ type: "text", text: "Tap search." }, { type: "image", mime: "image/jpeg", base64: "", width: 461, height: 1024 }] },
    ]);
    expect(r.image).toBe(425);
    expect(r.text).toBeGreaterThan(10);
    expect(r.total).toBe(r.text + r.image);
  });
});
