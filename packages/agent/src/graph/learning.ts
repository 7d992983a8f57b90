// Learning around a run: before it, what earlier runs left for the goal's apps (skills — validated ones, and
// candidates marked unverified — validated shortcuts, lessons of similar goals); after it, what this run teaches (its lessons, skills distilled from the todos it
// finished, the shortcuts of its apps found and tried on the phone). Learning never fails a run: a failure here is
// reported as an event and the run goes on without it.
import type { LessonKind } from "../ports.ts";
import { goalSimilarity, lessonsFor } from "../memory/lessons.ts";
import { appManifest, appsOfGoal, launcherApps } from "../shortcuts/discover.ts";
import { validateShortcuts } from "../shortcuts/validate.ts";
import { readSkillBody, describeSelector, type SkillBody } from "../skills/contract.ts";
import { appsOfSkill, describeWork, distilSkill, parameterise, recordedActions, skillName, withoutSecrets, withoutStepNumber, type ValueSource } from "../skills/distil.ts";
import type { RunContext } from "./state.ts";

/** How alike a skill's goal must be to this one for its app to count as one of the goal's apps. */
const SKILL_GOAL_SIMILARITY = 0.5;

export interface LearnedApp {
  packageName: string;
  label: string;
  version: string;
}

export interface OfferedSkill {
  id: string;
  name: string;
  app: string;
  body: SkillBody;
  /** A candidate no run has confirmed yet: offered marked unverified (its use validates it when its todo is accepted). */
  unverified?: boolean;
}

/** What a run was offered and what it used (checkpointed with the run). */
export interface Learned {
  apps: LearnedApp[];
  skills: OfferedSkill[];
  shortcuts: { id: string; app: string; uri: string; activity: string }[];
  lessons: { id: string; kind: LessonKind; text: string }[];
  /** The skills the executor ran, per todo: reached its end (ok) or handed back. */
  used: { skillId: string; name: string; todoId: string; ok: boolean; performed: number; params?: Record<string, string> }[];
}

export const emptyLearned = (): Learned => ({ apps: [], skills: [], shortcuts: [], lessons: [], used: [] });

/** The settle a learning step uses between device actions: the run's own criterion. */
export function settleOf(ctx: RunContext): () => Promise<void> {
  const { timeoutMs, intervalMs, requiredMatches, minQuietMs } = ctx.config.stable;
  return async () => void (await ctx.ports.device.waitForStable({ timeoutMs, intervalMs, requiredMatches, minQuietMs, checkLoadingIndicators: true }).catch(() => null));
}

/** Before the run: the goal's apps and what earlier runs left for them. */
export async function prepareLearning(ctx: RunContext, goal: string): Promise<Learned> {
  const { device, controlPlane: cp } = ctx.ports;
  const learned = emptyLearned();
  // A phone without a package manager to ask names no apps, so nothing is offered.
  if (!device.packageManager) return learned;
  const [launchers, fg] = await Promise.all([launcherApps(device), device.foreground().catch(() => null)]);
  // The goal's apps: those it names (or the one in front), and those of skills offered made for a similar goal.
  const skills = await learntSkills(cp);
  const apps = appsOfGoal(goal, launchers, fg?.packageName ?? null);
  for (const s of skills) {
    const launcher = launchers.find((a) => a.packageName === s.app);
    if (!launcher || apps.includes(launcher)) continue;
    // Alike goals, or a goal the skill's description fits with its values aside ("Create a note titled 'X' …").
    if (fitsWork(s, goal, goal) || goalSimilarity(goal, s.goal) >= SKILL_GOAL_SIMILARITY) apps.push(launcher);
  }
  for (const app of apps) await bringIn(ctx, learned, app, skills, goal);
  return learned;
}

/**
 * When a todo is claimed: the apps of skills its title fits that the goal did not bring in (a goal "… and text it to
 * Alice" names no Messages; its todo "Send the text message '…' to Alice" fits a Messages skill).
 */
export async function learnForTodo(ctx: RunContext, learned: Learned, title: string, goal: string): Promise<void> {
  const { device, controlPlane: cp } = ctx.ports;
  if (!device.packageManager) return;
  const skills = await learntSkills(cp);
  const wanted = [...new Set(skills.filter((s) => !learned.apps.some((a) => a.packageName === s.app) && fitsWork(s, title, goal)).map((s) => s.app))];
  if (!wanted.length) return;
  const launchers = await launcherApps(device);
  for (const app of launchers.filter((a) => wanted.includes(a.packageName))) await bringIn(ctx, learned, app, skills, goal);
}

type StoredSkill = Awaited<ReturnType<RunContext["ports"]["controlPlane"]["listSkills"]>>[number];
/** The workspace's skills that may be offered: validated ones first, then candidates. */
async function learntSkills(cp: RunContext["ports"]["controlPlane"]): Promise<StoredSkill[]> {
  const [validated, candidates] = await Promise.all([cp.listSkills({ status: "validated" }), cp.listSkills({ status: "candidate" })]);
  return [...validated, ...candidates];
}
/** Whether a stored skill's description fits the work (a todo's title, or the goal), values aside. */
function fitsWork(s: StoredSkill, title: string, goal: string): boolean {
  const body = readSkillBody(s.body);
  return body ? skillFit({ name: s.name, body }, { title, goal }) >= SKILL_TODO_SIMILARITY : false;
}
/** One app's version, validated shortcuts, skills of that version and lessons, into what the run was left. */
async function bringIn(ctx: RunContext, learned: Learned, app: { packageName: string; label: string }, skills: StoredSkill[], goal: string): Promise<void> {
  const cp = ctx.ports.controlPlane;
  const manifest = await appManifest(ctx.ports.device, app.packageName);
  if (!manifest) return;
  learned.apps.push({ packageName: app.packageName, label: app.label, version: manifest.version });
  // Shortcuts are recorded as soon as they are found; only validated ones are offered.
  const shortcuts = manifest.shortcuts.length ? await cp.saveShortcuts({ app: app.packageName, appVersion: manifest.version, shortcuts: manifest.shortcuts }) : [];
  for (const s of shortcuts) if (s.status === "validated") learned.shortcuts.push({ id: s.id, app: s.app, uri: s.uri, activity: s.activity });
  // Skills of the installed version only: another version's screens may differ. Validated ones first.
  for (const s of skills) {
    if (s.app !== app.packageName || s.appVersion !== manifest.version) continue;
    const body = readSkillBody(s.body);
    if (body) learned.skills.push({ id: s.id, name: s.name, app: s.app, body, ...(s.status === "candidate" ? { unverified: true } : {}) });
  }
  for (const l of lessonsFor(goal, [app.packageName], await cp.listLessons({ app: app.packageName }))) learned.lessons.push({ id: l.id, kind: l.kind, text: l.text });
}

/** How well a skill must match a todo to be offered to it (goalSimilarity of the todo's words and the skill's). */
export const SKILL_TODO_SIMILARITY = 0.25;
/** At most this many skills are offered to one todo. */
export const SKILLS_PER_TODO = 5;

// A description is a template: its `{param}` places hold values (a title, a name, a time). A todo's quoted text and
// its numbers (dates, times, phone numbers, amounts) are values too, so they are taken out before its words are
// compared: "Send Alice Chen the message 'Running late'" is about sending a message, not about running.
const QUOTED = /'[^']*'|"[^"]*"|«[^»]*»|„[^“”"]*[“”"]|“[^”]*”|「[^」]*」|『[^』]*』|‘[^’]*’/gu;
const NUMBERS = /[+]?\p{N}[\p{N}\s:./,-]*\p{N}|\p{N}/gu;
const PLACE = /\{[a-z][a-z0-9_]*\}/g;
const withoutValues = (text: string) => text.replace(QUOTED, " ").replace(NUMBERS, " ");

/** Whether the todo reads as the description with values in its places (case and spacing aside). */
function fillsTemplate(description: string, todo: string): boolean {
  if (!PLACE.test(description)) return false;
  PLACE.lastIndex = 0;
  const flat = (t: string) => t.normalize("NFKC").toLocaleLowerCase().replace(/\s+/g, " ").trim();
  const parts = flat(description).split(PLACE).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/ /g, "\\s*"));
  return new RegExp(`^${parts.join("(.+?)")}[.!。！]?$`, "u").test(flat(todo));
}

/** How well a skill fits a todo, 0–1: 1 when the todo fills its description's places, else how alike their words are (values aside). */
export function skillFit(skill: Pick<OfferedSkill, "name" | "body">, todo: { title: string; inputs?: Record<string, string>; goal: string }): number {
  const description = skill.body.description ?? skill.name;
  if (fillsTemplate(description, todo.title)) return 1;
  const words = `${description.replace(PLACE, " ")} ${(skill.body.params ?? []).join(" ")}`;
  const asked = [todo.title, ...Object.entries(todo.inputs ?? {}).flat()].map(withoutValues).join(" ");
  return Math.max(goalSimilarity(asked, words), goalSimilarity(withoutValues(todo.goal), words));
}

/**
 * The skills offered to one todo: those of the run's (installed-version) skills that fit it (skillFit: the todo's
 * title fills the description's places, or its words without values — with its inputs', or the goal's — match
 * the description's fixed words and parameter names; the name for an older body without a description), best
 * first, validated before candidates on ties, at most SKILLS_PER_TODO at or above SKILL_TODO_SIMILARITY.
 */
export function skillsForTodo(skills: readonly OfferedSkill[], todo: { title: string; inputs?: Record<string, string>; goal: string }): OfferedSkill[] {
  return skills
    .map((s, i) => ({ s, i, sim: skillFit(s, todo) }))
    .filter((x) => x.sim >= SKILL_TODO_SIMILARITY)
    .sort((a, b) => b.sim - a.sim || Number(!!a.s.unverified) - Number(!!b.s.unverified) || a.i - b.i)
    .slice(0, SKILLS_PER_TODO)
    .map((x) => x.s);
}

/** The skills offered to the executor, as its prompt lists them: name, what it does, its parameters, whether a run confirmed it, how many steps, where it starts. */
export function describeSkills(skills: readonly OfferedSkill[]): string {
  return skills
    .map((s) => {
      const params = s.body.params?.length ? `; params: ${s.body.params.map((p) => `{${p}}`).join(", ")}` : "";
      const does = s.body.description ? `${s.body.description}${params}; ` : params ? `${params.slice(2)}; ` : "";
      return `- "${s.name}" (${s.app}): ${does}${s.unverified ? "unverified (no run has confirmed it yet), " : ""}${s.body.steps.length} step(s), starts on ${s.body.pre.activity ?? (s.body.pre.app || "any screen")}${s.body.pre.required.length ? ` with ${s.body.pre.required.map(describeSelector).join(", ")}` : ""}`;
    })
    .join("\n");
}

export function describeShortcuts(shortcuts: Learned["shortcuts"]): string {
  return shortcuts.map((s) => `- ${s.uri} opens ${s.activity}`).join("\n");
}

export function describeLessons(lessons: Learned["lessons"]): string {
  return lessons.map((l) => `- (${l.kind}) ${l.text}`).join("\n");
}

interface RunRecords {
  runId: string;
  goalId: string;
  goal: string;
  learned?: Learned;
  executed: { todoId: string; title: string; status: string }[];
  /** The run's blackboard: the values its todos produced and read (a skill's parameters come from them). */
  blackboard?: Record<string, string>;
}

/** After the run: lessons for its app, skills from the todos it finished (a skill that handed back is repaired), shortcuts tried. */
export async function learnFromRun(ctx: RunContext, run: RunRecords, lessons: { kind: LessonKind; text: string }[]): Promise<void> {
  const { device, controlPlane: cp } = ctx.ports;
  const learned = run.learned ?? emptyLearned();
  const evidence = await cp.listEvidence({ goalId: run.goalId, runId: run.runId });
  const versionOf = async (pkg: string) => learned.apps.find((a) => a.packageName === pkg)?.version ?? (await appManifest(device, pkg).catch(() => null))?.version ?? null;

  // Lessons belong to the app the run worked in most.
  const seen = new Map<string, number>();
  for (const e of evidence) if (e.kind === "observation" && typeof e.data.app === "string") seen.set(e.data.app.split("/")[0]!, (seen.get(e.data.app.split("/")[0]!) ?? 0) + 1);
  const mainApp = learned.apps.find((a) => seen.has(a.packageName))?.packageName ?? [...seen.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? learned.apps[0]?.packageName;
  const kept = lessons.filter((l) => l.text.trim().length >= 3).slice(0, 3);
  if (mainApp && kept.length) await cp.addLessons({ app: mainApp, goal: run.goal.slice(0, 20_000), runId: run.runId, lessons: kept });

  // The run's values: its blackboard, and what the todos' hand-offs reported (a todo's inputs are read from it).
  const board: Record<string, string> = { ...(run.blackboard ?? {}) };
  for (const e of evidence) if (e.kind === "handoff" && e.data.outputs && typeof e.data.outputs === "object") for (const [k, v] of Object.entries(e.data.outputs)) if (typeof v === "string" && board[k] === undefined) board[k] = v;
  const literals = learned.apps.map((a) => a.label);
  const usedOk = new Set(learned.used.filter((u) => u.ok).map((u) => u.name));
  const ownerOf = async (body: SkillBody) => {
    // The skill belongs to the app it acts in most that is installed (the launcher of a path from home is not).
    for (const app of appsOfSkill(body)) {
      const v = await versionOf(app);
      if (v) return { app, version: v };
    }
    return null;
  };
  const save = async (todos: readonly { title: string }[], distilled: SkillBody, owner: { app: string; version: string }, repairs?: string) => {
    const titles = todos.map((t) => t.title);
    const sources: ValueSource[] = [{ text: run.goal, from: "goal" }, ...titles.map((text) => ({ text, from: "title" as const })), ...Object.entries(board).map(([key, value]) => ({ key, value }))];
    const body = parameterise({ ...distilled, app: owner.app }, sources, { literals });
    const description = describeWork(titles, body.example);
    const kept = withoutSecrets(body);
    // A skill that handed back and that the model then completed is repaired in place: same name, next version.
    const name = repairs ?? skillName(description);
    if (usedOk.has(name)) return null; // used as it is: saving it again would only make a new version of the same path
    // The todos' words as the skill's goal, a secret they spelt out read as its `{name}` (the goal is shown, as the body is).
    const hidden = Object.entries(body.example ?? {}).filter(([k, v]) => v && kept.example?.[k] === undefined);
    const goal = hidden.reduce((g, [k, v]) => g.split(v).join(`{${k}}`), titles.map(withoutStepNumber).join("; "));
    await cp.saveSkill({ app: owner.app, appVersion: owner.version, name, goal: goal.slice(0, 20_000), body: { ...kept, description } as unknown as Record<string, unknown>, runId: run.runId });
    return name;
  };

  // Each finished todo's path (a todo that read something keeps the screens it read on), and the app it belongs to.
  type Part = { todo: { todoId: string; title: string }; evidence: typeof evidence; read: boolean; body: SkillBody; owner: { app: string; version: string }; doneBySkill: boolean; repairs?: string };
  const parts: (Part | null)[] = [];
  for (const t of run.executed) {
    if (t.status !== "done") {
      parts.push(null); // ends a piece of work
      continue;
    }
    const mine = evidence.filter((e) => e.todoId === t.todoId);
    const { actions, last } = recordedActions(mine);
    // A todo whose result was information (its hand-off carries answers or outputs) read it on the screens it visited.
    const read = mine.some((e) => e.kind === "handoff" && ((Array.isArray(e.data.answers) && e.data.answers.length > 0) || Object.keys((e.data.outputs as Record<string, unknown> | undefined) ?? {}).length > 0));
    const body = distilSkill(actions, last, { keepVisits: read });
    if (!body) continue; // nothing done on the screen (an answer): not part of a path, not the end of one either
    const owner = await ownerOf(body);
    const used = learned.used.filter((u) => u.todoId === t.todoId);
    const repairs = used.at(-1)?.ok === false ? used.at(-1)!.name : undefined;
    parts.push(owner ? { todo: t, evidence: mine, read, body, owner, doneBySkill: used.some((u) => u.ok), ...(repairs ? { repairs } : {}) } : null);
  }
  // A skill per todo with two steps or more (one tap is not worth a skill), unless a skill did it as it is.
  for (const p of parts) if (p && !p.doneBySkill && p.body.steps.length >= 2) await save([p.todo], p.body, p.owner, p.repairs);
  // Consecutive todos in the same app are one piece of work: one skill over all of them, when it has more steps than each part.
  for (let i = 0; i < parts.length; ) {
    let j = i + 1;
    while (parts[i] && parts[j] && parts[j]!.owner.app === parts[i]!.owner.app) j++;
    const group = parts.slice(i, j) as Part[];
    i = j;
    if (group.length < 2 || !group[0]) continue;
    const { actions, last } = recordedActions(group.flatMap((p) => p.evidence));
    const whole = distilSkill(actions, last, { keepVisits: group.some((p) => p.read) });
    if (!whole || !group.every((p) => whole.steps.length > p.body.steps.length)) continue;
    await save(group.map((p) => p.todo), whole, group.at(-1)!.owner);
  }

  // Shortcuts of the run's apps not tried yet: tried now, on this phone, after the work is done; the phone is put
  // back on the screen the run ended on (part of its outcome).
  const untried = [];
  for (const app of learned.apps) untried.push(...(await cp.listShortcuts({ app: app.packageName, appVersion: app.version, status: "discovered" })));
  await validateShortcuts(device, untried, settleOf(ctx), async (s, v) => {
    await cp.recordShortcutValidation({ shortcutId: s.id, ok: v.ok, ...(v.ok ? {} : { reason: v.reason.slice(0, 1000) }) });
  });
}
