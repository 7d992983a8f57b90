// A run as one file: a zip (fflate) holding `replay.json` (the header and every step, as the replay reads them) and
// each screenshot under `screens/<sha256>`. A zip keeps the screenshots as their own bytes (JSON would carry them
// as base64, a third larger) and any unzip tool opens it; the import checks every screenshot against its sha256, so
// a file that was altered is refused rather than shown as the run.
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import type { ReplayHeader, ReplayStep } from "./replay-data.ts";
import { reviveDates } from "./replay-data.ts";

export const REPLAY_FILE_FORMAT = "phoneloop-replay";
export const REPLAY_FILE_VERSION = 1;

interface ReplayFileJson {
  format: typeof REPLAY_FILE_FORMAT;
  version: number;
  exportedAt: string;
  header: ReplayHeader;
  steps: ReplayStep[];
  /** sha256 → mime of each screenshot in `screens/`. */
  screens: Record<string, string>;
}

/** The zip of a run: its replay and the bytes of each screenshot its steps show. */
export async function exportReplay(header: ReplayHeader, steps: ReplayStep[], fetchScreen: (sha256: string) => Promise<{ bytes: Uint8Array; mime: string }>): Promise<Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  const screens: Record<string, string> = {};
  for (const sha of new Set(steps.flatMap((s) => (s.screen ? [s.screen.sha256] : [])))) {
    const { bytes, mime } = await fetchScreen(sha);
    files[`screens/${sha}`] = bytes;
    screens[sha] = mime;
  }
  const json: ReplayFileJson = { format: REPLAY_FILE_FORMAT, version: REPLAY_FILE_VERSION, exportedAt: new Date().toISOString(), header, steps, screens };
  files["replay.json"] = strToU8(JSON.stringify(json));
  // Screenshots are JPEG/PNG already: stored, not compressed again; the JSON is deflated.
  return zipSync(Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, [bytes, { level: name.endsWith(".json") ? 6 : 0 }]])));
}

export class ReplayFileError extends Error {
  override readonly name = "ReplayFileError";
}

export interface ImportedReplay {
  header: ReplayHeader;
  steps: ReplayStep[];
  exportedAt: string;
  /** sha256 → an object URL of the screenshot (revoke them when the replay is closed). */
  urls: Map<string, string>;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads an exported run; throws ReplayFileError saying what is wrong with the file. */
export async function importReplay(bytes: Uint8Array): Promise<ImportedReplay> {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes);
  } catch {
    throw new ReplayFileError("This file is not a zip. Choose a file made with “Export” on a run's page (run-….zip).");
  }
  const raw = files["replay.json"];
  if (!raw) throw new ReplayFileError("This zip holds no replay.json, so it is not an exported run. Choose a file made with “Export” on a run's page.");
  let json: ReplayFileJson;
  try {
    json = JSON.parse(strFromU8(raw)) as ReplayFileJson;
  } catch {
    throw new ReplayFileError("The replay.json in this file is not valid JSON; the file is damaged. Export the run again.");
  }
  if (json.format !== REPLAY_FILE_FORMAT) throw new ReplayFileError("This zip is not a PhoneLoop replay (its replay.json names another format).");
  if (json.version > REPLAY_FILE_VERSION) throw new ReplayFileError(`This replay was exported by a newer PhoneLoop (format version ${json.version}); update this one to open it.`);
  if (!json.header?.run || !Array.isArray(json.steps)) throw new ReplayFileError("The replay.json in this file lacks the run or its steps; the file is damaged. Export the run again.");
  const urls = new Map<string, string>();
  for (const [sha, mime] of Object.entries(json.screens ?? {})) {
    const screen = files[`screens/${sha}`];
    if (!screen) throw new ReplayFileError(`The screenshot ${sha.slice(0, 12)}… is missing from this file; the file is incomplete. Export the run again.`);
    if ((await sha256Hex(screen)) !== sha) throw new ReplayFileError(`The screenshot ${sha.slice(0, 12)}… does not match its sha256: the file was altered. Export the run again.`);
    urls.set(sha, URL.createObjectURL(new Blob([screen as Uint8Array<ArrayBuffer>], { type: mime })));
  }
  return { header: reviveDates(json.header), steps: reviveDates(json.steps).map(withActor), exportedAt: json.exportedAt, urls };
}

/** A file exported before steps carried their actor holds the agent's steps only. */
function withActor(step: ReplayStep): ReplayStep {
  const { actor } = step as Partial<ReplayStep>;
  return actor ? step : { ...step, actor: { kind: "agent" } };
}
