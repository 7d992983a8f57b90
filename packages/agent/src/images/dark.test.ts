// A black screenshot is recognised over the decoded pixels the runtime already samples (the pHash's grayscale), and a
// dark but real screen is not: real images, encoded as the phone and the virtual phone send them, decoded by the
// runtime's own decoder (nodeImages).
import { describe, expect, it } from "vitest";
import { createCanvas } from "@napi-rs/canvas";
import { PhoneEngine } from "@phoneloop/virtual-phone";
import { hashFrame } from "./index.ts";
import { nodeImages } from "./node.ts";
import { BLACK_SHARE, darkShare, isBlack } from "./dark.ts";

type Ctx = ReturnType<ReturnType<typeof createCanvas>["getContext"]>;
function encoded(mime: "image/png" | "image/webp" | "image/jpeg", draw: (g: Ctx) => void, w = 1080, h = 2400): Uint8Array {
  const c = createCanvas(w, h);
  draw(c.getContext("2d"));
  return new Uint8Array(mime === "image/png" ? c.toBuffer("image/png") : mime === "image/webp" ? c.toBuffer("image/webp", 80) : c.toBuffer("image/jpeg", 80));
}
const black = (g: Ctx) => {
  g.fillStyle = "#000";
  g.fillRect(0, 0, 1080, 2400);
};
/** A dark-theme screen: `surface` (#121212, or #000 in a pure-black theme), light text in rows, a status bar and a
 * button — dark, but seen. Measured: 0 of the samples black on #121212, 0.77 on #000 (the threshold is 0.99). */
const darkTheme = (surface: string) => (g: Ctx) => {
  g.fillStyle = surface;
  g.fillRect(0, 0, 1080, 2400);
  g.fillStyle = "#e0e0e0";
  g.font = "40px sans-serif";
  g.fillText("12:30", 40, 60);
  for (let i = 0; i < 8; i++) g.fillText(`Message ${i + 1} — see you at noon`, 60, 300 + i * 160);
  g.fillStyle = "#8ab4f8";
  g.fillRect(100, 2000, 880, 140);
};

const shareOf = async (bytes: Uint8Array) => (await hashFrame(nodeImages, bytes)).dark;

describe("black screenshots", () => {
  it("an all-black PNG and WebP (a secure window's screencap) are black", async () => {
    for (const mime of ["image/png", "image/webp"] as const) {
      const share = await shareOf(encoded(mime, black));
      expect(share, mime).toBe(1);
      expect(isBlack(share)).toBe(true);
    }
  });

  it("near-black with compression noise is black (JPEG of a black frame with a faint line)", async () => {
    const share = await shareOf(
      encoded("image/jpeg", (g) => {
        g.fillStyle = "#030303";
        g.fillRect(0, 0, 1080, 2400);
        g.fillStyle = "#0a0a0a";
        g.fillRect(0, 1200, 1080, 2);
      }),
    );
    expect(isBlack(share)).toBe(true);
  });

  it("a dark-theme screen with text and a button is not black, on a #121212 or a pure-black surface", async () => {
    for (const surface of ["#121212", "#000"]) {
      const share = await shareOf(encoded("image/png", darkTheme(surface)));
      expect(share, surface).toBeLessThan(BLACK_SHARE);
      expect(isBlack(share)).toBe(false);
    }
  });

  it("a black screen under a status bar with only its clock is black (a phone that draws the bar over a secure window)", async () => {
    const share = await shareOf(
      encoded("image/png", (g) => {
        black(g);
        g.fillStyle = "#fff";
        g.font = "40px sans-serif";
        g.fillText("12:30", 40, 60);
      }),
    );
    expect(share).toBeLessThan(1);
    expect(isBlack(share)).toBe(true);
  });

  it("the virtual phone's dark home screen (a real screenshot of it) is not black", async () => {
    const phone = new PhoneEngine();
    const shot = new Uint8Array(await phone.screenshot());
    const share = await shareOf(shot);
    expect(isBlack(share)).toBe(false);
  });

  it("darkShare counts the samples below the threshold", () => {
    const data = new Uint8Array(100).fill(0);
    data.fill(200, 0, 2);
    expect(darkShare({ width: 10, height: 10, data })).toBe(0.98);
    expect(isBlack(0.98)).toBe(false);
    data[1] = 7;
    expect(isBlack(darkShare({ width: 10, height: 10, data }))).toBe(true);
  });
});
