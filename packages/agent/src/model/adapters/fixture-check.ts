// An adapter fixture (fixtures/<adapter>.json): a reply in the model's documented format and what it must become —
// the actions with their device pixels, or the typed rejection. One checker for the tests and `npm run bench -- adapters`.
import { imageSizeFor, type Size } from "./frame.ts";
import { adapterFor } from "./index.ts";
import { parseReply, type AdapterReply, type ModelAdapter } from "./port.ts";

export interface ExpectedAction {
  type: string;
  point?: [number, number];
  from?: [number, number];
  to?: [number, number];
  [field: string]: unknown;
}

export interface AdapterFixture {
  name: string;
  reply: string;
  actions?: ExpectedAction[];
  reject?: string;
  /** The reply means the file's common target point. */
  target?: boolean;
}

export interface FixtureFile {
  adapter: string;
  version: string;
  screen: Size;
  target: { point: [number, number] };
  fixtures: AdapterFixture[];
}

export interface FixtureOutcome {
  fixture: AdapterFixture;
  reply: AdapterReply;
  /** Whether it became what the fixture expects. */
  ok: boolean;
  /** What differs, when not. */
  problem?: string;
  /** The largest distance, px on one axis, between an expected and a parsed device point. */
  pxError: number;
}

export function fixtureAdapter(file: FixtureFile): ModelAdapter {
  const a = adapterFor(file.adapter, file.version);
  if (!a) throw new Error(`No adapter ${file.adapter} ${file.version}.`);
  return a;
}

export function checkFixture(file: FixtureFile, f: AdapterFixture): FixtureOutcome {
  const adapter = fixtureAdapter(file);
  const screen = { device: file.screen, image: imageSizeFor(adapter.descriptor.image, file.screen) };
  const reply = parseReply(adapter, f.reply, screen);
  const out = (ok: boolean, pxError: number, problem?: string): FixtureOutcome => ({ fixture: f, reply, ok, pxError, ...(problem ? { problem } : {}) });
  if (f.reject) {
    if (reply.ok) return out(false, 0, `expected the rejection ${f.reject}, got ${reply.actions.map((a) => a.action.type).join(", ")}`);
    return reply.error.code === f.reject ? out(true, 0) : out(false, 0, `expected ${f.reject}, got ${reply.error.code}: ${reply.error.message}`);
  }
  if (!reply.ok) return out(false, 0, `rejected ${reply.error.code}: ${reply.error.message}`);
  const want = f.actions ?? [];
  if (reply.actions.length !== want.length) return out(false, 0, `expected ${want.length} actions, got ${reply.actions.length}`);
  let pxError = 0;
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const got = reply.actions[i]!;
    if (got.action.type !== w.type) return out(false, pxError, `action ${i}: expected ${w.type}, got ${got.action.type}`);
    for (const key of ["point", "from", "to"] as const) {
      const e = w[key];
      const g = got[key];
      if (e === undefined && g === undefined) continue;
      if (e === undefined || g === undefined) return out(false, pxError, `action ${i}: ${key} ${e === undefined ? "not expected" : "missing"}`);
      pxError = Math.max(pxError, Math.abs(g.x - e[0]), Math.abs(g.y - e[1]));
    }
    for (const [k, v] of Object.entries(w)) {
      if (k === "type" || k === "point" || k === "from" || k === "to") continue;
      if ((got.action as Record<string, unknown>)[k] !== v) return out(false, pxError, `action ${i}: ${k} expected ${JSON.stringify(v)}, got ${JSON.stringify((got.action as Record<string, unknown>)[k])}`);
    }
  }
  return pxError === 0 ? out(true, 0) : out(false, pxError, `device points off by up to ${pxError} px`);
}
