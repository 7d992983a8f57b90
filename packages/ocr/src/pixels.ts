// Pure pixel work before Tesseract reads a screen. Hand-written because no library does these two screen-specific
// things: (1) find the control under a tap point — the flat-coloured region around it — and (2) turn it into dark
// ink on white whatever its colours. Tesseract binarises a whole page with one threshold, which loses light text on
// a filled (dark or coloured) button: exactly the committing button of most dialogs.

export interface Gray {
  width: number;
  height: number;
  /** One luminance byte per pixel, row-major. */
  data: Uint8Array;
}

export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export function grayOf(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Gray {
  const n = width * height;
  const data = new Uint8Array(n);
  for (let i = 0; i < n; i++) data[i] = (77 * rgba[i * 4]! + 150 * rgba[i * 4 + 1]! + 29 * rgba[i * 4 + 2]!) >> 8;
  return { width, height, data };
}

/** True when every pixel is (nearly) black: a secure window's screenshot, or the screen off. */
export function isBlack(g: Gray): boolean {
  for (let i = 0; i < g.data.length; i += 7) if (g.data[i]! > 16) return false;
  return true;
}

function median(g: Gray, cx: number, cy: number, r: number): number {
  const hist = new Uint32Array(256);
  let count = 0;
  for (let y = Math.max(0, cy - r); y <= Math.min(g.height - 1, cy + r); y++)
    for (let x = Math.max(0, cx - r); x <= Math.min(g.width - 1, cx + r); x++) {
      hist[g.data[y * g.width + x]!]!++;
      count++;
    }
  let k = 0;
  for (let acc = 0; acc + hist[k]! <= count / 2 && k < 255; k++) acc += hist[k]!;
  return k;
}

const SAME = 24;

/** A control found under a point: its box, its background colour, and which pixels of the image are that background. */
export interface Control {
  box: Rect;
  background: number;
  /** 1 where the pixel belongs to the control's background region (image-sized). */
  region: Uint8Array;
}

/**
 * The control under `p`: the flat region of the colour around the point (its background, not a letter the point
 * may fall on), grown from the point. Its box and colour; null when the region is most of the screen (a page
 * background, not a control) or the point is off the image.
 */
export function controlAt(g: Gray, p: { x: number; y: number }, maxShare = 0.25): Control | null {
  const px = Math.round(p.x);
  const py = Math.round(p.y);
  if (px < 0 || py < 0 || px >= g.width || py >= g.height) return null;
  const background = median(g, px, py, Math.max(4, Math.round(g.height / 80)));
  // Seed: the pixel of that colour nearest the point (the point may sit on a letter).
  let seed = -1;
  for (let r = 0; r < 40 && seed < 0; r++)
    for (let y = py - r; y <= py + r && seed < 0; y++)
      for (let x = px - r; x <= px + r; x++) {
        if (x < 0 || y < 0 || x >= g.width || y >= g.height) continue;
        if (Math.abs(g.data[y * g.width + x]! - background) <= SAME) {
          seed = y * g.width + x;
          break;
        }
      }
  if (seed < 0) return null;
  const seen = new Uint8Array(g.width * g.height);
  const region = new Uint8Array(g.width * g.height);
  const stack = [seed];
  seen[seed] = 1;
  let left = g.width, top = g.height, right = 0, bottom = 0, area = 0;
  const limit = g.width * g.height * maxShare;
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % g.width;
    const y = (i - x) / g.width;
    if (++area > limit) return null;
    region[i] = 1;
    if (x < left) left = x;
    if (x > right) right = x;
    if (y < top) top = y;
    if (y > bottom) bottom = y;
    const next = [x > 0 ? i - 1 : -1, x < g.width - 1 ? i + 1 : -1, y > 0 ? i - g.width : -1, y < g.height - 1 ? i + g.width : -1];
    for (const j of next) {
      if (j < 0 || seen[j]) continue;
      seen[j] = 1;
      if (Math.abs(g.data[j]! - background) <= SAME) stack.push(j);
    }
  }
  if (right - left < 8 || bottom - top < 8) return null;
  return { box: { left, top, right: right + 1, bottom: bottom + 1 }, background, region };
}

/**
 * The control as dark ink on white, with a white margin: ink is what lies inside the control's region (its letters
 * and glyphs, holes in the region) — not the corners of its box outside its rounded shape, which touch the box's edge.
 */
export function inkOnWhite(g: Gray, c: Control, margin = 12): Gray {
  const { box } = c;
  const bw = box.right - box.left;
  const bh = box.bottom - box.top;
  // Outside: pixels of the box not in the region that the box's edge reaches without crossing the region.
  const outside = new Uint8Array(bw * bh);
  const stack: number[] = [];
  const visit = (x: number, y: number) => {
    const k = y * bw + x;
    if (outside[k] || c.region[(box.top + y) * g.width + box.left + x]) return;
    outside[k] = 1;
    stack.push(k);
  };
  for (let x = 0; x < bw; x++) {
    visit(x, 0);
    visit(x, bh - 1);
  }
  for (let y = 0; y < bh; y++) {
    visit(0, y);
    visit(bw - 1, y);
  }
  while (stack.length) {
    const k = stack.pop()!;
    const x = k % bw;
    const y = (k - x) / bw;
    if (x > 0) visit(x - 1, y);
    if (x < bw - 1) visit(x + 1, y);
    if (y > 0) visit(x, y - 1);
    if (y < bh - 1) visit(x, y + 1);
  }
  const w = bw + 2 * margin;
  const h = bh + 2 * margin;
  const data = new Uint8Array(w * h).fill(255);
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) {
      const v = g.data[(box.top + y) * g.width + box.left + x]!;
      if (!outside[y * bw + x] && Math.abs(v - c.background) > 2 * SAME) data[(y + margin) * w + (x + margin)] = 0;
    }
  return { width: w, height: h, data };
}

/** A part of the image as it is. */
export function crop(g: Gray, box: Rect): Gray {
  const w = box.right - box.left;
  const h = box.bottom - box.top;
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) data.set(g.data.subarray((box.top + y) * g.width + box.left, (box.top + y) * g.width + box.left + w), y * w);
  return { width: w, height: h, data };
}

/**
 * The part of the screen read around a tap: from well above the point (a dialog's title and message, a price line)
 * to a little below it, the full width.
 */
export function bandAround(g: Gray, p: { x: number; y: number }): Rect {
  const top = Math.max(0, Math.round(p.y - g.height * 0.25));
  const bottom = Math.min(g.height, Math.round(p.y + g.height * 0.05));
  return { left: 0, top, right: g.width, bottom };
}
