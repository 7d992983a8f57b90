// A run as a share link shows it: the same replay a member sees (runReplay, runSteps), with the text typed into
// password fields masked everywhere and those fields boxed over on its screenshots, and its grade without who gave
// it. Nothing else of the run (its checkpoint, other runs, other blobs) is reachable through the link.
import pLimit from "p-limit";
import sharp from "sharp";
import { openBlob, readEvidenceData, runReplay, runSteps, PAGE_LIMIT, type BlobStore, type Db, type OpenedShare, type Page, type ReplayStep, type RunReplay } from "@phoneloop/state";
import { passwordBoxes, passwordTextsOf, redact } from "./redact.ts";
import { scanReplay, type SecretFinding } from "./secret-scan.ts";

/** Every step of a run, page after page. */
export async function allSteps(db: Db, runId: string): Promise<ReplayStep[]> {
  const steps: ReplayStep[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await runSteps(db, { runId, limit: PAGE_LIMIT.max, ...(cursor ? { cursor } : {}) });
    steps.push(...page.items);
    if (!page.nextCursor) return steps;
    cursor = page.nextCursor;
  }
}

/** What the person sharing a run is shown first: every secret-looking thing in it, and what the link will mask. */
export async function scanRun(db: Db, runId: string): Promise<{ findings: SecretFinding[]; maskedTexts: number; maskedScreens: number }> {
  const [replay, steps] = await Promise.all([runReplay(db, { runId }), allSteps(db, runId)]);
  return {
    findings: scanReplay(replay, steps),
    maskedTexts: passwordTextsOf(steps).size,
    maskedScreens: steps.filter((s) => s.screen && passwordBoxes(s.screen.elements).length > 0).length,
  };
}

async function secretsOf(db: Db, runId: string): Promise<Set<string>> {
  return passwordTextsOf(await allSteps(db, runId));
}

/**
 * The replay's header as the link shows it. The grade stays (the verdict and when it was given); who gave it does
 * not, and neither does the grade's note: a reviewer's own words, which may name people — what the run itself
 * reported (the summarizer's report, the timeline) is the run's review text, and stays, masked as the rest.
 */
export async function sharedReplay(db: Db, share: OpenedShare): Promise<RunReplay> {
  const [replay, secrets] = await Promise.all([runReplay(db, { runId: share.runId }), secretsOf(db, share.runId)]);
  return redact({ ...replay, run: { ...replay.run, gradedBy: null, gradeNote: null } }, secrets);
}

export async function sharedSteps(db: Db, share: OpenedShare, page: { cursor?: string | null; limit?: number }): Promise<Page<ReplayStep>> {
  const [steps, secrets] = await Promise.all([runSteps(db, { runId: share.runId, ...page }), secretsOf(db, share.runId)]);
  return redact(steps, secrets);
}

/**
 * Masked screenshots decoded and re-encoded at once, at most: each is in memory whole while it is (an image is
 * decoded whole), so this bounds what share links can make the API hold. Every other blob a link reads streams from
 * the blob store as a member's read does (blob-route.ts).
 */
const MASKING_AT_ONCE = 2;
const masking = pLimit(MASKING_AT_ONCE);

export type Box = [number, number, number, number];

/** The boxes a share link draws over a screenshot of its run: every password field an observation of it recorded. */
export async function passwordBoxesOn(db: Db, share: OpenedShare, sha256: string): Promise<Box[]> {
  const observations = await db.evidence.findMany({ where: { runId: share.runId, blobSha256: sha256, kind: "observation" }, select: { data: true } });
  return observations.flatMap((o) => passwordBoxes(readEvidenceData("observation", o.data).elements ?? []));
}

/**
 * A screenshot of the shared run with an opaque box over each password field (boxes from passwordBoxesOn): read from
 * the store and re-encoded in its own format, a few at a time. Null when the bytes are gone (retention, collector).
 */
export async function maskedBlob(db: Db, share: OpenedShare, sha256: string, boxes: Box[], store: BlobStore): Promise<{ mime: string; bytes: Buffer } | null> {
  return masking(async () => {
    const opened = await openBlob(db, sha256, { share }, { store });
    if (opened.status !== "ok") return null;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.body) chunks.push(Buffer.from(chunk as Uint8Array));
    return { mime: opened.info.mime, bytes: await boxOver(Buffer.concat(chunks), opened.info.mime, boxes) };
  });
}

/** Opaque boxes drawn over an image, boxes in 0–1000 of its width and height; the image keeps its format. */
async function boxOver(bytes: Uint8Array, mime: string, boxes: Box[]): Promise<Buffer> {
  const image = sharp(bytes);
  const { width = 0, height = 0 } = await image.metadata();
  const pad = 4;
  const rects = boxes
    .map(([l, t, r, b]) => {
      const x = Math.max(0, Math.floor((l * width) / 1000) - pad);
      const y = Math.max(0, Math.floor((t * height) / 1000) - pad);
      const w = Math.min(width - x, Math.ceil(((r - l) * width) / 1000) + 2 * pad);
      const h = Math.min(height - y, Math.ceil(((b - t) * height) / 1000) + 2 * pad);
      return `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#1b1b1f"/>`;
    })
    .join("");
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${rects}</svg>`);
  const drawn = image.composite([{ input: svg, top: 0, left: 0 }]);
  return mime === "image/png" ? drawn.png().toBuffer() : mime === "image/webp" ? drawn.webp().toBuffer() : drawn.jpeg({ quality: 85 }).toBuffer();
}
