// A model of a phone's delays for what agents do most, so timing tuned against the virtual phone holds on hardware.
// It is a model, not a measurement: the virtual phone waits these fixed delays (with seeded jitter) before it answers.
// "none" keeps the phone as fast as it can render; "lagging" is a phone under load whose input commands take 2.5 s
// each (a tap sent just before its client died lands seconds later, after the client is gone).
//
// What "realistic" is calibrated to (published measurements, each on one device; a recent mid-range phone at
// 1080×2400 sits at their fast end, which is where the profile is put):
// - screencap: Appium Pro edition 83 (appiumpro.com/editions/83) gives 0.3–0.5 s for a screenshot over
//   `adb exec-out` even on fast hardware; "Why adb screencap is slow" (elliotgao2.github.io/handsets) measured
//   `screencap -p` at 661 / 2,122 / 3,007 ms (p10 / median / p90) and raw `screencap` at 675 ms on an Android 15
//   emulator at 1440×3120. Profile: 450 ms with -p (PNG encoded on the phone's CPU), 180 ms raw.
// - uiautomator dump: "Fast automated mobile E2E testing" (andykong.org, 2026) gives 2–3 s for a dense Android
//   screen; the virtual phone's screens are small. Profile: 1,200 ms.
// - input: each `input` command starts an app_process; "tap, swipe and two smoking events" (prog.world) measured
//   1,160 ms per `input tap` on a Galaxy Note 4 (2014). Profile: 280 ms, 380 ms for `input text`.
// - am start / monkey: an activity's "Displayed" time is commonly 0.5–1.5 s (dev.to/pyricau, "How adb measures App
//   Startup", shows +1,380 ms). Profile: 700–800 ms.
// `npm run bench -- device` prints what the Device measures on top of these delays; `--device <spec>` measures a real
// phone instead.
import { seededRandom } from "./scenario/runtime.ts";

export const LATENCY_PROFILES = ["none", "realistic", "lagging"] as const;
export type LatencyProfile = (typeof LATENCY_PROFILES)[number];

interface Delay {
  /** Typical time on a mid-range phone. */
  ms: number;
  /** ± this fraction of `ms`, drawn from the phone's seed. */
  jitter: number;
}

// screencap -p encodes a full-resolution PNG on the CPU; uiautomator and input start an app_process each time.
const REALISTIC: Record<string, Delay> = {
  "screencap -p": { ms: 450, jitter: 0.25 },
  screencap: { ms: 180, jitter: 0.25 },
  "uiautomator dump": { ms: 1200, jitter: 0.2 },
  "input text": { ms: 380, jitter: 0.2 },
  input: { ms: 280, jitter: 0.2 },
  "am start": { ms: 700, jitter: 0.3 },
  monkey: { ms: 800, jitter: 0.3 },
};

// A phone under load: reads as on a mid-range phone, every input command seconds behind.
const LAGGING: Record<string, Delay> = {
  ...REALISTIC,
  "input text": { ms: 2500, jitter: 0.05 },
  input: { ms: 2500, jitter: 0.05 },
};

/** Which entry of the profile a command falls under, or null when it runs at full speed. */
function kindOf(argv: string[]): string | null {
  const [cmd, sub] = argv;
  if (cmd === "screencap") return argv.includes("-p") || argv.some((a) => a.endsWith(".png")) ? "screencap -p" : "screencap";
  if (cmd === "uiautomator" && sub === "dump") return "uiautomator dump";
  if (cmd === "input") return argv.includes("text") ? "input text" : "input";
  if (cmd === "am" && (sub === "start" || sub === "start-activity")) return "am start";
  if (cmd === "monkey") return "monkey";
  return null;
}

/** `input swipe x1 y1 x2 y2 [ms]` (and draganddrop) block for the gesture's own duration on a phone. */
function gestureMs(argv: string[]): number {
  const i = argv.findIndex((a) => a === "swipe" || a === "draganddrop");
  if (i < 0) return 0;
  const ms = Number(argv[i + 5]);
  return Number.isFinite(ms) && ms >= 0 ? ms : 300;
}

export class Latency {
  #draws = 0;
  constructor(
    readonly profile: LatencyProfile,
    readonly seed: number,
  ) {}

  /** How long this command takes before it answers; 0 with the "none" profile. */
  delayFor(argv: string[]): number {
    if (this.profile === "none") return 0;
    const kind = kindOf(argv);
    if (!kind) return 0;
    const d = (this.profile === "lagging" ? LAGGING : REALISTIC)[kind]!;
    const r = seededRandom(this.seed, `latency:${kind}`, this.#draws++);
    return Math.round(d.ms * (1 + d.jitter * (2 * r - 1))) + gestureMs(argv);
  }

  /** The profile's typical delay per command kind (before jitter), for benchmarks that subtract the model. */
  static typical(profile: Exclude<LatencyProfile, "none"> = "realistic"): Record<string, number> {
    return Object.fromEntries(Object.entries(profile === "lagging" ? LAGGING : REALISTIC).map(([k, v]) => [k, v.ms]));
  }
}
