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

/**
 * The most frequent luminance around a point: a control's background is one flat colour, so it wins over its
 * letters and their anti-aliased edges even where the letters are dense (a median there can land on an edge's blend
 * of the two, a colour no region has).
 */
function dominant(g: Gray, cx: number, cy: number, r: number): number {
  const hist = new Uint32Array(256);
  for (let y = Math.max(0, cy - r); y <= Math.min(g.height - 1, cy + r); y++)
    for (let x = Math.max(0, cx - r); x <= Math.min(g.width - 1, cx + r); x++) hist[g.data[y * g.width + x]!]!++;
  let best = 0;
  for (let k = 1; k < 256; k++) if (hist[k]! > hist[best]!) best = k;
  return best;
}

const SAME = 24;
/** The share of the way from a control's background to its letters' colour where a letter's core begins. */
const CORE = 0.75;

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
  const background = dominant(g, px, py, Math.max(4, Math.round(g.height / 80)));
  const same = (i: number) => Math.abs(g.data[i]! - background) <= SAME;
  // Which region of that colour each pixel was found in (0: none yet).
  const found = new Uint16Array(g.width * g.height);
  const limit = g.width * g.height * maxShare;
  let attempt = 0;
  // Seeds: the pixels of that colour nearest the point, ring by ring (the point may sit on a letter). A seed inside
  // a letter's counter (the loop of a Thai or Bengali letter is the background's colour) grows a speck: the next seed
  // outside it is tried.
  for (let r = 0; r < 40; r++)
    for (let y = py - r; y <= py + r; y++)
      for (let x = px - r; x <= px + r; x += y === py - r || y === py + r ? 1 : 2 * r) {
        if (x < 0 || y < 0 || x >= g.width || y >= g.height) continue;
        const seed = y * g.width + x;
        if (found[seed] || !same(seed)) continue;
        const id = ++attempt;
        const stack = [seed];
        found[seed] = id;
        let left = g.width, top = g.height, right = 0, bottom = 0, area = 0;
        while (stack.length) {
          const i = stack.pop()!;
          const ix = i % g.width;
          const iy = (i - ix) / g.width;
          if (++area > limit) return null;
          if (ix < left) left = ix;
          if (ix > right) right = ix;
          if (iy < top) top = iy;
          if (iy > bottom) bottom = iy;
          const grow = (j: number) => {
            if (!found[j] && same(j)) {
              found[j] = id;
              stack.push(j);
            }
          };
          if (ix > 0) grow(i - 1);
          if (ix < g.width - 1) grow(i + 1);
          if (iy > 0) grow(i - g.width);
          if (iy < g.height - 1) grow(i + g.width);
        }
        if (right - left < 8 || bottom - top < 8) continue;
        const region = new Uint8Array(g.width * g.height);
        for (let ry = top; ry <= bottom; ry++) for (let i = ry * g.width + left; i <= ry * g.width + right; i++) if (found[i] === id) region[i] = 1;
        return { box: { left, top, right: right + 1, bottom: bottom + 1 }, background, region };
      }
  return null;
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
  // The letters' own colour: the farthest from the background inside the control.
  let contrast = 0;
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) if (!outside[y * bw + x]) contrast = Math.max(contrast, Math.abs(g.data[(box.top + y) * g.width + box.left + x]! - c.background));
  const data = new Uint8Array(w * h).fill(255);
  if (contrast <= 2 * SAME) return { width: w, height: h, data };
  // Ink is only the letters' core: the pixels at least three quarters of the way from the background to the letters'
  // colour, shaded by how far. A filled button's words are bold, and their anti-aliased edges taken as ink as well
  // join a letter to the mark above it (Thai's เงิน then reads เจิน); the core keeps them apart.
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) {
      if (outside[y * bw + x]) continue;
      const share = Math.min(1, Math.abs(g.data[(box.top + y) * g.width + box.left + x]! - c.background) / contrast);
      if (share >= CORE) data[(y + margin) * w + (x + margin)] = Math.round(255 * (1 - share));
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

/**
 * The image made smaller by `factor` (< 1), each pixel the mean of the pixels it covers: the band around a tap is
 * read smaller than the control (its text is larger and there is more of it; Tesseract's time grows with pixels).
 */
export function scaled(g: Gray, factor: number): Gray {
  if (factor >= 1) return g;
  const width = Math.max(1, Math.round(g.width * factor));
  const height = Math.max(1, Math.round(g.height * factor));
  const sums = new Uint32Array(width * height);
  const counts = new Uint32Array(width * height);
  const xs = new Uint32Array(g.width);
  for (let x = 0; x < g.width; x++) xs[x] = Math.min(width - 1, Math.floor(x * factor));
  for (let y = 0; y < g.height; y++) {
    const row = Math.min(height - 1, Math.floor(y * factor)) * width;
    for (let x = 0; x < g.width; x++) {
      const k = row + xs[x]!;
      sums[k]! += g.data[y * g.width + x]!;
      counts[k]!++;
    }
  }
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = counts[i] ? Math.round(sums[i]! / counts[i]!) : 255;
  return { width, height, data };
}
