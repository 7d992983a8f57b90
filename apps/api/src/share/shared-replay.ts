// A run as a share link shows it: the same replay a member sees (runReplay, runSteps), with the text typed into
// password fields masked everywhere and those fields boxed over on its screenshots. Nothing else of the run (its
// checkpoint, other runs, other blobs) is reachable through the link.
import sharp from "sharp";
import { getBlob, runReplay, runSteps, PAGE_LIMIT, type Db, type OpenedShare, type Page, type ReplayScreen, type ReplayStep, type RunReplay } from "@phoneloop/state";
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

export async function sharedReplay(db: Db, share: OpenedShare): Promise<RunReplay> {
  const [replay, secrets] = await Promise.all([runReplay(db, { runId: share.runId }), secretsOf(db, share.runId)]);
  return redact(replay, secrets);
}

export async function sharedSteps(db: Db, share: OpenedShare, page: { cursor?: string; limit?: number }): Promise<Page<ReplayStep>> {
  const [steps, secrets] = await Promise.all([runSteps(db, { runId: share.runId, ...page }), secretsOf(db, share.runId)]);
  return redact(steps, secrets);
}

/** Masked screenshots by sha256 (the masking is the same for every share of the run): the last few, in memory. */
const masked = new Map<string, { mime: string; bytes: Uint8Array }>();
const MASKED_KEPT = 64;

/**
 * A blob of the shared run as the link shows it: a screenshot with password fields on it gets an opaque box over
 * each field's bounds (from the UI tree the observation recorded). Null when the blob is not the run's.
 */
export async function sharedBlob(db: Db, share: OpenedShare, sha256: string): Promise<{ mime: string; bytes: Uint8Array } | null> {
  const blob = await getBlob(db, sha256, { share });
  if (!blob) return null;
  const key = `${share.runId}:${sha256}`;
  const hit = masked.get(key);
  if (hit) return hit;
  const observations = await db.evidence.findMany({ where: { runId: share.runId, blobSha256: sha256, kind: "observation" }, select: { data: true } });
  const boxes = observations.flatMap((o) => {
    const elements = (o.data as { elements?: unknown } | null)?.elements;
    return Array.isArray(elements) ? passwordBoxes(elements as ReplayScreen["elements"]) : [];
  });
  if (!boxes.length) return blob;
  const out = { mime: blob.mime, bytes: new Uint8Array(await boxOver(blob.bytes, blob.mime, boxes)) };
  masked.set(key, out);
  if (masked.size > MASKED_KEPT) masked.delete(masked.keys().next().value!);
  return out;
}

/** Opaque boxes drawn over an image, boxes in 0–1000 of its width and height; the image keeps its format. */
async function boxOver(bytes: Uint8Array, mime: string, boxes: [number, number, number, number][]): Promise<Buffer> {
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
