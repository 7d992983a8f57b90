// The words and arithmetic of task suites: a suite run's statuses, what counts as a success, and the success rate's
// confidence interval (Wilson's score interval), and the settings a run's figures depend on with how two runs differ
// in them. Pure: the runner, the API and the web app share it.
import { z } from "zod";

/** running: attempts are being recorded; completed: every attempt ran; failed: the runner stopped before that. */
export const SUITE_RUN_STATUSES = ["running", "completed", "failed"] as const;
export type SuiteRunStatus = (typeof SUITE_RUN_STATUSES)[number];

/** An attempt succeeds when the task's evaluator gives it full marks (every weighted check, no failIf rule). */
export function isSuccessfulAttempt(a: { score: number }): boolean {
  return a.score >= 1;
}

export interface RateInterval {
  /** Successes over attempts (0 when there are none). */
  rate: number;
  low: number;
  high: number;
}

/**
 * The success rate with its 95% Wilson score interval (z = 1.96). Written here rather than taken from a package: it is
 * one closed formula, and the statistics packages on npm that carry it bring far more than this one function.
 * Unlike the normal approximation it stays inside [0, 1] and is honest at 0/n and n/n.
 */
export function wilsonInterval(successes: number, attempts: number, z = 1.96): RateInterval {
  if (attempts <= 0) return { rate: 0, low: 0, high: 0 };
  const p = successes / attempts;
  const z2 = z * z;
  const denom = 1 + z2 / attempts;
  const centre = (p + z2 / (2 * attempts)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / attempts + z2 / (4 * attempts * attempts))) / denom;
  return { rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** The roles whose settings a suite run records, as the runtime names them. */
export const SUITE_SETTING_ROLES = ["executor", "planner", "summarizer"] as const;
export type SuiteSettingRole = (typeof SUITE_SETTING_ROLES)[number];

/** What one role's figures depend on: the endpoint and model, how the runtime speaks to it, how it samples. */
export const SuiteRoleSettings = z.strictObject({
  model: z.string().min(1).max(200),
  /** The endpoint's URL without credentials or query (the key never leaves the runner). */
  endpoint: z.string().min(1).max(1000),
  /** The model adapter (the prompt and action language spoken to the model) and the published version it follows. */
  adapter: z.string().min(1).max(100),
  adapterVersion: z.string().min(1).max(100),
  /** Sampling as sent: null where the endpoint's own default applies. */
  temperature: z.number().min(0).max(10).nullable(),
  topP: z.number().min(0).max(1).nullable(),
  seed: z.number().int().nullable(),
  maxOutputTokens: z.number().int().min(1).max(10_000_000),
  structuredOutput: z.string().max(50),
  imageDetail: z.string().max(50),
});
export type SuiteRoleSettings = z.infer<typeof SuiteRoleSettings>;

/** Everything a suite run's figures depend on besides its tasks, seeds and perturbations. */
export const SuiteSettings = z.strictObject({
  /** The prompts' fingerprint (the runtime's promptFingerprint): equal when every prompt and schema is. */
  prompts: z.string().min(1).max(100),
  roles: z.strictObject({ executor: SuiteRoleSettings, planner: SuiteRoleSettings, summarizer: SuiteRoleSettings }),
});
export type SuiteSettings = z.infer<typeof SuiteSettings>;

/** One setting that differs between two suite runs: its path ("executor.temperature", "prompts", "trials") and both values. */
export interface SettingDifference {
  setting: string;
  a: string;
  b: string;
}

/** The settings two suite runs differ in; runs recorded before settings were (`{}`) differ in "settings" as a whole. */
export function settingDifferences(
  a: { settings: SuiteSettings | null; trials: number; perturbations: string[] },
  b: { settings: SuiteSettings | null; trials: number; perturbations: string[] },
): SettingDifference[] {
  const out: SettingDifference[] = [];
  const differ = (setting: string, x: unknown, y: unknown) => {
    const [sx, sy] = [x === null || x === undefined ? "—" : String(x), y === null || y === undefined ? "—" : String(y)];
    if (sx !== sy) out.push({ setting, a: sx, b: sy });
  };
  differ("trials", a.trials, b.trials);
  differ("perturbations", [...a.perturbations].sort().join(", ") || "none", [...b.perturbations].sort().join(", ") || "none");
  if (!a.settings || !b.settings) {
    if (a.settings !== b.settings) differ("settings", a.settings ? "recorded" : "not recorded", b.settings ? "recorded" : "not recorded");
    return out;
  }
  differ("prompts", a.settings.prompts, b.settings.prompts);
  for (const role of SUITE_SETTING_ROLES) {
    const [x, y] = [a.settings.roles[role], b.settings.roles[role]];
    for (const key of Object.keys(x) as (keyof SuiteRoleSettings)[]) differ(`${role}.${key}`, x[key], y[key]);
  }
  return out;
}

/** A stored settings value as the schema reads it: null for runs recorded before settings were (or a row that does not parse). */
export function storedSuiteSettings(raw: unknown): SuiteSettings | null {
  const parsed = SuiteSettings.safeParse(raw);
  return parsed.success ? parsed.data : null;
}
