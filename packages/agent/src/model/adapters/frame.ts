// Coordinate frames and image rules: where a model's numbers point, and what size of image it saw. The ONE mapping
// from a model's frame back to the device's pixels (toDevice) lives here; every adapter calls it.
//
// Rounding rule: a value v in a frame whose extent is [0, span] lands on device pixel round(v / span · (D − 1)),
// D the device's width or height, Math.round (halves up). The frame's far edge is the device's last pixel, so the
// phoneloop frame keeps today's mapping (graph/observe.ts toPx) exactly. A value outside [0, span] on either axis is
// refused (COORDINATE_OUT_OF_RANGE), never clamped: a model pointing off the screen is told so and asked again,
// where a clamp would tap an edge it did not mean.
import { fitLongSide } from "../../images/index.ts";

export interface Size {
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/**
 * normalised: 0..max on both axes whatever the image's shape (1000 for UI-TARS 1.0/2 and Qwen3-VL, 999 for
 * AutoGLM-Phone, 1000 for the product's own language). image-pixels: absolute pixels of the image as the model saw
 * it after its resize rule (0..width−1, 0..height−1). relative: 0..1.
 */
export type CoordinateFrame = { kind: "normalised"; max: number } | { kind: "image-pixels" } | { kind: "relative" };

export function describeFrame(f: CoordinateFrame): string {
  if (f.kind === "normalised") return `normalised 0–${f.max}`;
  if (f.kind === "image-pixels") return "absolute pixels of the resized image";
  return "relative 0–1";
}

/** The extent of each axis in the frame, for an image of this size. */
export function frameSpan(frame: CoordinateFrame, image: Size): Size {
  if (frame.kind === "normalised") return { width: frame.max, height: frame.max };
  if (frame.kind === "relative") return { width: 1, height: 1 };
  return { width: Math.max(1, image.width - 1), height: Math.max(1, image.height - 1) };
}

export type DeviceMapping = { ok: true; point: Point } | { ok: false; message: string };

/** A point in the model's frame → device pixels, or why it is off the screen. */
export function toDevice(p: Point, frame: CoordinateFrame, image: Size, device: Size): DeviceMapping {
  const span = frameSpan(frame, image);
  if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) return { ok: false, message: "The point has a coordinate that is not a number." };
  if (p.x < 0 || p.y < 0 || p.x > span.width || p.y > span.height) {
    return { ok: false, message: `The point (${p.x}, ${p.y}) is outside the screen: in this frame (${describeFrame(frame)}) x runs 0–${span.width} and y 0–${span.height}.` };
  }
  return { ok: true, point: { x: Math.round((p.x / span.width) * (device.width - 1)), y: Math.round((p.y / span.height) * (device.height - 1)) } };
}

/** Device pixels → a value in the model's frame (unrounded): for fixtures, history and the product's own language. */
export function fromDevice(p: Point, frame: CoordinateFrame, image: Size, device: Size): Point {
  const span = frameSpan(frame, image);
  return { x: (p.x / Math.max(1, device.width - 1)) * span.width, y: (p.y / Math.max(1, device.height - 1)) * span.height };
}

/** How far apart two device points a frame's neighbouring values can be: half of it is the frame's rounding error. */
export function frameStep(frame: CoordinateFrame, image: Size, device: Size): Size {
  const span = frameSpan(frame, image);
  return { width: (device.width - 1) / span.width, height: (device.height - 1) / span.height };
}

/**
 * How an adapter's model sees the screenshot. fit-long-side: scaled so the long side is at most `longSide` (the
 * product's own rule). smart-resize: the Qwen-VL family's rule — each side rounded to a multiple of `factor`
 * (patch size × merge size), then scaled into [minPixels, maxPixels] keeping the aspect ratio.
 */
export type ImageRule =
  | { kind: "fit-long-side"; longSide: number }
  | { kind: "smart-resize"; factor: number; patchSize: number; minPixels: number; maxPixels: number };

/** The Qwen-VL resize rule, in our words: nearest multiples of the factor, shrunk or grown to fit the pixel budget. */
export function smartResize(size: Size, factor: number, minPixels: number, maxPixels: number): Size {
  const roundTo = (n: number) => Math.max(factor, Math.round(n / factor) * factor);
  const floorTo = (n: number) => Math.max(factor, Math.floor(n / factor) * factor);
  const ceilTo = (n: number) => Math.ceil(n / factor) * factor;
  let h = roundTo(size.height);
  let w = roundTo(size.width);
  if (h * w > maxPixels) {
    const beta = Math.sqrt((size.height * size.width) / maxPixels);
    h = floorTo(size.height / beta);
    w = floorTo(size.width / beta);
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (size.height * size.width));
    h = ceilTo(size.height * beta);
    w = ceilTo(size.width * beta);
  }
  return { width: w, height: h };
}

/** The size of the image the model is sent for a screen of this size. */
export function imageSizeFor(rule: ImageRule, device: Size): Size {
  if (rule.kind === "fit-long-side") return fitLongSide(device.width, device.height, rule.longSide);
  return smartResize(device, rule.factor, rule.minPixels, rule.maxPixels);
}

export function describeImageRule(rule: ImageRule): string {
  if (rule.kind === "fit-long-side") return `long side at most ${rule.longSide} px`;
  return `smart resize to multiples of ${rule.factor} px (patch ${rule.patchSize}), ${rule.minPixels}–${rule.maxPixels} pixels`;
}
