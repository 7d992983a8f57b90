// The one mapping from a model's frame to device pixels, on portrait and landscape screens of three sizes, and the
// Qwen-VL resize rule the pixel frames are read against.
import { describe, expect, it } from "vitest";
import { toPx } from "../../graph/observe.ts";
import { fromDevice, imageSizeFor, smartResize, toDevice, type CoordinateFrame } from "./frame.ts";

const SCREENS = [
  { width: 720, height: 1600 },
  { width: 1080, height: 2400 },
  { width: 1440, height: 3200 },
  { width: 1600, height: 720 },
  { width: 2400, height: 1080 },
  { width: 3200, height: 1440 },
];
const QWEN25 = { kind: "smart-resize", factor: 28, patchSize: 14, minPixels: 3136, maxPixels: 12845056 } as const;
const FRAMES: CoordinateFrame[] = [{ kind: "normalised", max: 1000 }, { kind: "normalised", max: 999 }, { kind: "image-pixels" }, { kind: "relative" }];

describe("coordinate frames", () => {
  for (const device of SCREENS) {
    const image = imageSizeFor(QWEN25, device);
    it(`${device.width}×${device.height}: corners, centre and the product's frame as today`, () => {
      for (const frame of FRAMES) {
        const span = frame.kind === "normalised" ? { w: frame.max, h: frame.max } : frame.kind === "relative" ? { w: 1, h: 1 } : { w: image.width - 1, h: image.height - 1 };
        expect(toDevice({ x: 0, y: 0 }, frame, image, device)).toEqual({ ok: true, point: { x: 0, y: 0 } });
        expect(toDevice({ x: span.w, y: span.h }, frame, image, device)).toEqual({ ok: true, point: { x: device.width - 1, y: device.height - 1 } });
        const c = toDevice({ x: span.w / 2, y: span.h / 2 }, frame, image, device);
        expect(c).toEqual({ ok: true, point: { x: Math.round((device.width - 1) / 2), y: Math.round((device.height - 1) / 2) } });
        expect(toDevice({ x: span.w + 1, y: 0 }, frame, image, device).ok).toBe(false);
        expect(toDevice({ x: 0, y: -1 }, frame, image, device).ok).toBe(false);
        expect(toDevice({ x: Number.NaN, y: 0 }, frame, image, device).ok).toBe(false);
        // Every device pixel survives the round trip through the frame's unrounded value.
        for (const p of [{ x: 1, y: 2 }, { x: device.width - 2, y: Math.floor(device.height / 3) }]) {
          const v = fromDevice(p, frame, image, device);
          expect(toDevice(v, frame, image, device)).toEqual({ ok: true, point: p });
        }
      }
      // The product's 0–1000 frame maps as graph/observe.ts toPx always did.
      for (const v of [{ x: 0, y: 0 }, { x: 333, y: 777 }, { x: 500, y: 500 }, { x: 1000, y: 1000 }, { x: 1, y: 999 }])
        expect(toDevice(v, { kind: "normalised", max: 1000 }, image, device)).toEqual({ ok: true, point: toPx(v, device.width, device.height) });
    });
  }

  it("rounds halves up", () => {
    // 0–1000 on 1080 px: 500 → 539.5 → 540.
    expect(toDevice({ x: 500, y: 0 }, { kind: "normalised", max: 1000 }, { width: 1, height: 1 }, { width: 1080, height: 2400 })).toEqual({ ok: true, point: { x: 540, y: 0 } });
  });

  it("smart resize: multiples of the factor, inside the pixel budget, aspect kept", () => {
    expect(smartResize({ width: 1080, height: 2400 }, 28, 3136, 12845056)).toEqual({ width: 1092, height: 2408 });
    expect(smartResize({ width: 1080, height: 2400 }, 32, 65536, 16777216)).toEqual({ width: 1088, height: 2400 });
    expect(smartResize({ width: 2400, height: 1080 }, 28, 3136, 12845056)).toEqual({ width: 2408, height: 1092 });
    // Over the budget: scaled down, floored to the factor.
    const big = smartResize({ width: 1440, height: 3200 }, 28, 3136, 1280 * 28 * 28);
    expect(big.width % 28).toBe(0);
    expect(big.height % 28).toBe(0);
    expect(big.width * big.height).toBeLessThanOrEqual(1280 * 28 * 28);
    expect(Math.abs(big.height / big.width - 3200 / 1440)).toBeLessThan(0.05);
    // Under the minimum: scaled up, ceiled to the factor.
    const small = smartResize({ width: 20, height: 40 }, 28, 100 * 28 * 28, 16384 * 28 * 28);
    expect(small.width * small.height).toBeGreaterThanOrEqual(100 * 28 * 28);
    expect(imageSizeFor({ kind: "fit-long-side", longSide: 1024 }, { width: 1080, height: 2400 })).toEqual({ width: 461, height: 1024 });
  });
});
