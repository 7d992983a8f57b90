// The words of learning: skills distilled from runs, deeplink shortcuts of app versions, lessons per app.
/** candidate: distilled, not yet replayed; validated: replayed on a fresh phone, offered to runs; disabled: by a person. */
export const SKILL_STATUSES = ["candidate", "validated", "disabled"] as const;
export type SkillStatus = (typeof SKILL_STATUSES)[number];
/** discovered: found in the package manager, not yet tried; validated: opened the expected screen; retired: one failed validation. */
export const SHORTCUT_STATUSES = ["discovered", "validated", "retired"] as const;
export type ShortcutStatus = (typeof SHORTCUT_STATUSES)[number];
/** What a lesson says: what failed, or what worked. */
export const LESSON_KINDS = ["failed", "worked"] as const;
export type LessonKind = (typeof LESSON_KINDS)[number];
/** The summarizer writes at most this many lessons per run. */
export const MAX_LESSONS_PER_RUN = 3;
