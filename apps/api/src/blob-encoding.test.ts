// POST /blobs stores what it can vouch for: an image without its metadata (EXIF, XMP, text chunks) in every mode,
// `?exact=1` keeping its pixels (a JPEG or WebP always keeps them); a file that does not decode whole is a 400; a header declaring more pixels
// than a blob may have is a 413 before anything is decoded; a caller storing too many at once gets a 429.
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { agentTokenHeaders, signUpMember, type SignedUpMember } from "./auth/testing.ts";
import { MAX_BLOB_PIXELS } from "./blob-encoding.ts";
import { UPLOADS_PER_CALLER } from "./blob-route.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let admin: SignedUpMember;
let agent: { headers: Record<string, string> };

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  agent = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
});

const EXIF_TEXT = "GPS-52.37N-4.89E-Alice";
const XMP_TEXT = "xmp-creator-bob@example.com";
const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>${XMP_TEXT}</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>`;

/** A screen-like image with EXIF and XMP in it. */
async function withMetadata(format: "png" | "jpeg" | "webp"): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="400"><rect width="100%" height="100%" fill="#fff"/><rect x="20" y="60" width="200" height="90" fill="#1d9bf0"/></svg>`;
  const image = sharp(Buffer.from(svg)).withExif({ IFD0: { Artist: EXIF_TEXT, Copyright: EXIF_TEXT } }).withXmp(XMP);
  const bytes = await (format === "png" ? image.png() : format === "jpeg" ? image.jpeg() : image.webp()).toBuffer();
  expect(bytes.includes(EXIF_TEXT)).toBe(true);
  return bytes;
}

const upload = (body: Uint8Array, type: string, query = "", headers = agent.headers) =>
  fetch(`${api.url}/blobs${query}`, { method: "POST", headers: { ...headers, "content-type": type }, body: Buffer.from(body) });
const stored = async (r: Response) => {
  expect(r.status).toBeLessThan(300);
  const { sha256, mime } = (await r.json()) as { sha256: string; mime: string };
  const bytes = Buffer.from(await (await fetch(`${api.url}/blobs/${sha256}`, { headers: admin.headers })).arrayBuffer());
  return { mime, bytes };
};
const error = async (r: Response) => ({ status: r.status, ...((await r.json()) as { error: { code: string; message: string } }).error });

describe("POST /blobs stores images without their metadata", () => {
  it("in every mode: PNG (as WebP, and ?exact=1 with the same pixels), JPEG and WebP (as sent, ?exact=1 too)", async () => {
    const modes = [["png", "image/png", ""], ["png", "image/png", "?exact=1"], ["jpeg", "image/jpeg", ""], ["jpeg", "image/jpeg", "?exact=1"], ["webp", "image/webp", ""], ["webp", "image/webp", "?exact=1"]] as const;
    for (const [format, mime, query] of modes) {
      const sent = await withMetadata(format);
      const kept = await stored(await upload(sent, mime, query));
      expect(kept.bytes.includes(EXIF_TEXT), `${mime}${query} keeps EXIF`).toBe(false);
      expect(kept.bytes.includes(XMP_TEXT), `${mime}${query} keeps XMP`).toBe(false);
      const meta = await sharp(kept.bytes).metadata();
      expect(meta).toMatchObject({ width: 240, height: 400 });
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      if (query || format !== "png") {
        expect(kept.mime, `${mime}${query}`).toBe(mime);
        expect(await sharp(kept.bytes).raw().toBuffer(), `${mime}${query} keeps its pixels`).toEqual(await sharp(sent).raw().toBuffer());
      }
    }
  });

  it("a clean JPEG or WebP is stored byte for byte (the sha256 the uploader computed names it)", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="200"><rect width="100%" height="100%" fill="#2a7"/></svg>`;
    for (const [format, mime, query] of [["jpeg", "image/jpeg", ""], ["jpeg", "image/jpeg", "?exact=1"], ["webp", "image/webp", ""]] as const) {
      const image = sharp(Buffer.from(svg));
      const sent = await (format === "jpeg" ? image.jpeg() : image.webp()).toBuffer();
      const kept = await stored(await upload(sent, mime, query));
      expect(kept.bytes.equals(sent), `${mime}${query}`).toBe(true);
    }
  });
});

describe("POST /blobs refuses images it cannot decode whole or should not decode", () => {
  it("a truncated JPEG or PNG is a 400 saying to upload the complete file, in every mode", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><circle cx="150" cy="150" r="120" fill="#a22"/></svg>`;
    const jpeg = await sharp(Buffer.from(svg)).jpeg().toBuffer();
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    for (const [bytes, mime, query] of [[jpeg, "image/jpeg", ""], [png, "image/png", ""], [png, "image/png", "?exact=1"]] as const) {
      const cut = bytes.subarray(0, Math.floor(bytes.length * 0.6));
      expect(await error(await upload(cut, mime, query))).toMatchObject({ status: 400, code: "INVALID_INPUT", message: expect.stringMatching(/does not decode whole.*complete file/) });
    }
  });

  it("a JPEG with a colour profile (as a canvas encodes a screen) is stored without it, its pixels kept; cut short, it is a 400", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="400"><rect width="100%" height="100%" fill="#f4f4f4"/><rect x="20" y="60" width="200" height="90" fill="#1d9bf0"/></svg>`;
    const sent = await sharp(Buffer.from(svg)).withIccProfile("p3").jpeg().toBuffer();
    expect((await sharp(sent).metadata()).icc).toBeDefined();
    const kept = await stored(await upload(sent, "image/jpeg"));
    expect(kept.mime).toBe("image/jpeg");
    expect((await sharp(kept.bytes).metadata()).icc).toBeUndefined();
    expect(await sharp(kept.bytes).raw().toBuffer()).toEqual(await sharp(sent, { ignoreIcc: true }).raw().toBuffer());
    const cut = sent.subarray(0, Math.floor(sent.length * 0.6));
    expect(await error(await upload(cut, "image/jpeg"))).toMatchObject({ status: 400, code: "INVALID_INPUT", message: expect.stringMatching(/does not decode whole.*complete file/) });
  });

  it("a small file declaring more pixels than a blob may have is a 413, read from its header", async () => {
    // 6000×6600 of one colour: a small file whose pixels would take seconds to decode.
    const huge = await sharp({ create: { width: 6000, height: 6600, channels: 3, background: "#fff" } }).png({ compressionLevel: 9 }).toBuffer();
    expect(6000 * 6600).toBeGreaterThan(MAX_BLOB_PIXELS);
    expect(await error(await upload(huge, "image/png"))).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE", message: expect.stringMatching(/6000×6600.*scale the screenshot down/) });
  });

  it(`a caller with ${UPLOADS_PER_CALLER} uploads in progress gets a 429 with Retry-After for the next; another caller is served meanwhile`, async () => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#0a0" } }).png().toBuffer();
    // Uploads whose bodies are still arriving hold their caller's slots. A probe that reaches the server before one
    // of them has it takes that slot instead, and the late one is refused; then the scene is set up again.
    let open: ReadableStreamDefaultController<Uint8Array>[] = [];
    let pending: Promise<Response>[] = [];
    let next: Response | undefined;
    // What ended each attempt that set up no scene: an upload answered (or failed) before the probe was refused.
    const early: string[] = [];
    for (let attempt = 0; attempt < 20 && !next; attempt++) {
      open = [];
      let settled = 0;
      pending = Array.from({ length: UPLOADS_PER_CALLER }, () => {
        const answer = fetch(`${api.url}/blobs`, {
          method: "POST",
          headers: { ...agent.headers, "content-type": "image/png" },
          body: new ReadableStream<Uint8Array>({ start: (c) => void open.push(c) }),
          duplex: "half",
        } as RequestInit);
        answer.then(
          (r) => (settled++, early.push(String(r.status))),
          (e: unknown) => (settled++, early.push(e instanceof Error ? `${e.message} ${String((e as { cause?: unknown }).cause ?? "")}` : String(e))),
        );
        return answer;
      });
      for (const c of open) c.enqueue(new Uint8Array(png.subarray(0, 8)));
      // Give the held uploads a head start over the probe, longer after each lost race: on a loaded machine a probe
      // on a kept-alive connection reached the server before the second held upload had its slot, every time
      // (early answers 429, 400 in each of 20 attempts).
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
      // The server has them once their first bytes arrive: probe until a next upload is refused.
      for (let probe = 0; probe < 200 && settled === 0; probe++) {
        const r = await upload(png, "image/png");
        if (r.status !== 201 && r.status !== 200 && settled === 0) {
          next = r;
          break;
        }
      }
      if (!next) {
        for (const c of open) {
          try {
            c.close();
          } catch {
            // the server already answered that upload
          }
        }
        const answers = await Promise.allSettled(pending);
        // A slot still held by an upload the server has not yet seen end (a loaded machine) refuses this caller for
        // a moment: wait as the answer says before setting the scene again.
        if (answers.some((a) => a.status === "fulfilled" && a.value.status === 429)) await new Promise((r) => setTimeout(r, 1_000));
      }
    }
    if (!next) throw new Error(`the uploads in progress never held their caller's slots (early answers: ${early.join(", ")})`);
    expect(next.status).toBe(429);
    expect(Number(next.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await next.json()) as { error: { message: string } }).error.message).toMatch(/at once already.*retry after/);
    const other = await signUpMember({ db: t.db, auth: api.auth }, { role: "operator", workspaceId: admin.workspaceId });
    expect((await upload(png, "image/png", "", other.headers)).status).toBeLessThan(300);
    for (const c of open) {
      c.enqueue(new Uint8Array(png.subarray(8)));
      c.close();
    }
    expect((await Promise.all(pending)).map((r) => r.status < 300)).toEqual(Array(UPLOADS_PER_CALLER).fill(true));
    expect((await upload(png, "image/png")).status).toBeLessThan(300);
  });
});
