// The words of learning: skills distilled from runs, deeplink shortcuts of app versions, lessons per app.
/**
 * candidate: distilled or repaired, not yet confirmed (offered to runs marked unverified); validated: a run used it,
 * every step's screen was as expected and its todo was accepted — or a person approved it; disabled: by a person
 * (never offered); retired: this version failed twice in a row (never offered until repaired).
 */
export const SKILL_STATUSES = ["candidate", "validated", "disabled", "retired"] as const;
export type SkillStatus = (typeof SKILL_STATUSES)[number];
/** The statuses whose skills a run is offered. */
export const OFFERED_SKILL_STATUSES: readonly SkillStatus[] = ["candidate", "validated"];
/** How many failed uses in a row of one version retire it. */
export const SKILL_FAILURES_TO_RETIRE = 2;
/** discovered: found in the package manager, not yet tried; validated: opened the expected screen; retired: one failed validation. */
export const SHORTCUT_STATUSES = ["discovered", "validated", "retired"] as const;
export type ShortcutStatus = (typeof SHORTCUT_STATUSES)[number];
/** What a lesson says: what failed, or what worked. */
export const LESSON_KINDS = ["failed", "worked"] as const;
export type LessonKind = (typeof LESSON_KINDS)[number];
/** The summarizer writes at most this many lessons per run. */
export const MAX_LESSONS_PER_RUN = 3;
