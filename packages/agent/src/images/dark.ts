// A black screenshot: what a phone returns for a window that forbids screenshots (FLAG_SECURE), a screen switched
// off or a video surface it cannot capture. Measured over the luminance samples the runtime already takes of every
// frame (the pHash's grayscale): the share of samples darker than DARK_LUMINANCE. A real screen in a dark theme has
// its text, icons and status bar above it; a black one has nothing.

import type { GrayImage } from "../ports.ts";

/** A sample darker than this (0–255 luminance) counts as black: a screencap of a secure window is 0, JPEG noise a few. */
export const DARK_LUMINANCE = 8;
/** A frame whose samples are this dark, or more, is black (a dark theme's screen has text and icons above it). */
export const BLACK_SHARE = 0.99;

/** The share (0–1) of the image's samples darker than DARK_LUMINANCE. */
export function darkShare(gray: GrayImage): number {
  const n = gray.data.length;
  if (!n) return 1;
  let dark = 0;
  for (let i = 0; i < n; i++) if (gray.data[i]! < DARK_LUMINANCE) dark++;
  return dark / n;
}

/** The frame is black: nothing on it can be seen. */
export const isBlack = (share: number): boolean => share >= BLACK_SHARE;
