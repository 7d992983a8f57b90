// A screen with a known target, for checking where a model's taps land (the Models page's grounding check): the
// phone's own rendering of one app screen and the box of the row a person would tap for a label on it, read from
// the phone's own UI tree — so the target is exactly where the screenshot draws it.
import { DEFAULT_SCENARIO, PhoneEngine } from "./engine.ts";
import { parseDump } from "./testing.ts";

export interface KnownTarget {
  /** The screenshot as the phone's screencap returns it (PNG). */
  png: Buffer;
  width: number;
  height: number;
  /** The package of the app on screen. */
  app: string;
  label: string;
  /** The smallest clickable element holding the label, in device pixels. */
  box: { left: number; top: number; right: number; bottom: number };
}

/** The default scenario's `app` opened on its first screen, and the row labelled `label` on it. */
export async function knownTarget(app = "settings", label = "Display"): Promise<KnownTarget> {
  const engine = new PhoneEngine({ scenario: DEFAULT_SCENARIO, seed: 1 });
  engine.launch(app);
  const png = await engine.screenshot();
  const nodes = parseDump(engine.uiDump());
  const text = nodes.find((n) => n.text === label);
  if (!text) throw new Error(`The ${app} screen shows no "${label}".`);
  const [l, t, r, b] = text.bounds;
  const rows = nodes.filter((n) => n.attrs.clickable === "true" && n.bounds[0] <= l && n.bounds[1] <= t && n.bounds[2] >= r && n.bounds[3] >= b);
  const row = rows.sort((x, y) => (x.bounds[2] - x.bounds[0]) * (x.bounds[3] - x.bounds[1]) - (y.bounds[2] - y.bounds[0]) * (y.bounds[3] - y.bounds[1]))[0] ?? text;
  const { width, height } = engine.device;
  return { png, width, height, app: row.attrs.package ?? "", label, box: { left: row.bounds[0], top: row.bounds[1], right: row.bounds[2], bottom: row.bounds[3] } };
}
