// What a suite's attempts learn from. A suite measures: by default ("isolated") every attempt reads the workspace's
// learning — skills, shortcuts, lessons — as it was when the suite started, so a success rate does not depend on the
// order attempts ran in (what an attempt teaches is still recorded: the workspace keeps it, later suites start from
// it). "shared": each attempt reads what earlier attempts left, and the order they started in is recorded with the
// results. The view is a ControlPlane whose learning reads answer from the snapshot; every write goes through.
import type { ControlPlane, LessonRecord, ShortcutRecord, SkillRecord } from "@phoneloop/agent";
import { readAllPages, type ApiClient } from "@phoneloop/client";
import { PAGE_LIMIT } from "@phoneloop/state/domain";

export const SUITE_LEARNING = ["isolated", "shared"] as const;
export type SuiteLearning = (typeof SUITE_LEARNING)[number];

export interface LearningSnapshot {
  skills: SkillRecord[];
  shortcuts: ShortcutRecord[];
  lessons: LessonRecord[];
}

/** The workspace's learning now, read through the API with the suite's token. */
export async function snapshotLearning(client: ApiClient): Promise<LearningSnapshot> {
  const [skills, shortcuts, lessons] = await Promise.all([
    readAllPages((cursor) => client.skill.list.query({ cursor, limit: PAGE_LIMIT.max })),
    readAllPages((cursor) => client.shortcut.list.query({ cursor, limit: PAGE_LIMIT.max })),
    readAllPages((cursor) => client.lesson.list.query({ cursor, limit: PAGE_LIMIT.max })),
  ]);
  return {
    skills: skills.map((s) => ({ id: s.id, app: s.app, appVersion: s.appVersion, name: s.name, goal: s.goal, body: s.body, status: s.status, version: s.version, runId: s.runId, successes: s.successes, failures: s.failures })),
    shortcuts: shortcuts.map((s) => ({ id: s.id, app: s.app, appVersion: s.appVersion, uri: s.uri, activity: s.activity, status: s.status, reason: s.reason })),
    lessons: lessons.map((l) => ({ id: l.id, app: l.app, goal: l.goal, kind: l.kind, text: l.text, runId: l.runId })),
  };
}

/** `cp` reading learning from `snap`: skills, shortcuts and lessons as they were; a shortcut found since is not yet tried. */
export function learningAsOf(cp: ControlPlane, snap: LearningSnapshot): ControlPlane {
  const clone = <T>(xs: T[]) => structuredClone(xs);
  const reads: Partial<ControlPlane> = {
    listSkills: async (f) => clone(snap.skills.filter((s) => (!f.app || s.app === f.app) && (!f.appVersion || s.appVersion === f.appVersion) && (!f.status || s.status === f.status))),
    listShortcuts: async (f) => clone(snap.shortcuts.filter((s) => s.app === f.app && s.appVersion === f.appVersion && (!f.status || s.status === f.status))),
    listLessons: async (f) => clone(snap.lessons.filter((l) => l.app === f.app)),
    // The discovery is recorded; the statuses answered are the snapshot's.
    saveShortcuts: async (i) => {
      const saved = await cp.saveShortcuts(i);
      return saved.map((s) => {
        const then = snap.shortcuts.find((x) => x.id === s.id);
        return then ? structuredClone(then) : { ...s, status: "discovered" as const, reason: null };
      });
    },
  };
  return new Proxy(cp, {
    get(target, prop, receiver) {
      const own = reads[prop as keyof ControlPlane];
      if (own) return own;
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
