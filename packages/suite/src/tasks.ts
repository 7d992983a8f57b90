// Which tasks a suite runs: the virtual phone's built-in pack, or every scenario file of a folder, filtered by a
// glob over task ids (picomatch: `settings_*`, `{mail,notes}_*`, `*`; several globs comma-separated). A glob ending
// in `@<n>` picks variant n of the tasks it matches (the task with other values for its params: `notes_create@1`),
// `@*` every variant but the task's own; the reference (`notes_create@1`) is the attempt's task id in the report.
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import picomatch from "picomatch";
import { loadScenario, taskGoal, taskParams, type Task } from "@phoneloop/virtual-phone";

export interface SuiteTask {
  /** The task's reference: its id, with `@<variant>` for a variant other than its own params. */
  id: string;
  /** The scenario's task id the phone starts. */
  task: string;
  /** Which param set the phone starts it with: 0 its own, n its variants[n - 1]. */
  variant: number;
  /** How many variants the task has besides its own params. */
  variants: number;
  goal: string;
  maxSteps: number;
  /** What the phone loads: a built-in scenario name, or a scenario file. */
  scenario: string;
}

/** The built-in scenario whose phone starts on the launcher, with every app and task of the pack. */
export const PACK_SCENARIO = "home";

export class TaskSelectionError extends Error {
  readonly code = "NO_TASKS";
}

/**
 * A task tagged `takeover` needs a person's hands on the phone (its goal leaves out what only a person may type, a
 * password): the suite answers gates, but it cannot take over, so it runs none of them.
 */
export const NEEDS_A_PERSON = "takeover";
const unattended = (t: { tags: string[] }) => !t.tags.includes(NEEDS_A_PERSON);

/** A task of a scenario as the suite runs it: variant 0 (its own params) or another. */
function suiteTask(t: Task, scenario: string, variant = 0): SuiteTask {
  return { id: variant === 0 ? t.id : `${t.id}@${variant}`, task: t.id, variant, variants: t.variants.length, goal: taskGoal(t, taskParams(t, variant)), maxSteps: t.maxSteps, scenario };
}

/** The apps of the pack (no folder) or of the folder's scenario files, by package: the scenario a phone with the app loads. */
export function availableApps(scenariosDir?: string): Map<string, string> {
  const apps = new Map<string, string>();
  const scenarios = scenariosDir ? [...new Set(scenarioTasks(scenariosDir).map((t) => t.scenario))] : [PACK_SCENARIO];
  for (const scenario of scenarios) for (const app of loadScenario(scenario).apps) if (!apps.has(app.package)) apps.set(app.package, scenario);
  return apps;
}

/** Every task of the pack (no folder) or of the folder's scenario files, in file then task order; none that needs a person. */
export function availableTasks(scenariosDir?: string): SuiteTask[] {
  return scenarioTasks(scenariosDir).map(({ task, scenario }) => suiteTask(task, scenario));
}

function scenarioTasks(scenariosDir?: string): { task: Task; scenario: string }[] {
  if (!scenariosDir) return loadScenario(PACK_SCENARIO).tasks.filter(unattended).map((task) => ({ task, scenario: PACK_SCENARIO }));
  const dir = resolve(scenariosDir);
  let files: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a folder");
    files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  } catch (e) {
    throw new TaskSelectionError(`--scenarios ${scenariosDir}: ${(e as Error).message}; give a folder of scenario JSON files.`);
  }
  const seen = new Map<string, string>();
  const out: { task: Task; scenario: string }[] = [];
  for (const f of files) {
    const path = join(dir, f);
    for (const t of loadScenario(path).tasks.filter(unattended)) {
      const other = seen.get(t.id);
      if (other) throw new TaskSelectionError(`task "${t.id}" is in both ${other} and ${f}; a suite names each task once, so rename one of them.`);
      seen.set(t.id, f);
      out.push({ task: t, scenario: path });
    }
  }
  if (!out.length) throw new TaskSelectionError(`--scenarios ${scenariosDir}: no scenario file there has tasks (each *.json is a scenario; see packages/virtual-phone/README.md).`);
  return out;
}

/**
 * The tasks whose ids match the glob (or any of several, comma-separated), in the order of the tasks and then of the
 * globs' variants (`notes_*@1`: variant 1 of each notes task that has one; a task named twice is run once).
 */
export function selectTasks(glob: string, scenariosDir?: string): SuiteTask[] {
  const all = scenarioTasks(scenariosDir);
  const globs = (splitGlobs(glob).length ? splitGlobs(glob) : ["*"]).map((g) => {
    const at = /^(.*)@(\d+|\*)$/.exec(g);
    const base = at ? at[1]! : g;
    return { match: picomatch(base), exact: !/[*?{}[\]()!+@]/.test(base), variant: at ? (at[2] === "*" ? ("every" as const) : Number(at[2])) : 0 };
  });
  const picked = new Map<string, SuiteTask>();
  for (const { task, scenario } of all) {
    for (const g of globs) {
      if (!g.match(task.id)) continue;
      const variants = g.variant === "every" ? task.variants.map((_, i) => i + 1) : [g.variant];
      for (const v of variants) {
        if (v > task.variants.length) {
          // a task named exactly with a variant it lacks is a mistake; a glob's other tasks may have fewer variants
          if (g.exact) throw new TaskSelectionError(`task "${task.id}" has no variant ${v}: its variants are ${task.variants.length ? `1 to ${task.variants.length}` : "none"} (0 is its own params).`);
          continue;
        }
        const t = suiteTask(task, scenario, v);
        if (!picked.has(t.id)) picked.set(t.id, t);
      }
    }
  }
  if (!picked.size) throw new TaskSelectionError(`no task matches --tasks ${glob}; the tasks are: ${all.map((t) => t.task.id).join(", ")}${all.some((t) => t.task.variants.length) ? ` (with variants: ${all.filter((t) => t.task.variants.length).map((t) => `${t.task.id}@1..${t.task.variants.length}`).join(", ")})` : ""}`);
  return [...picked.values()];
}

/** "a_*, {b,c}_x" → ["a_*", "{b,c}_x"]: commas split globs, except inside braces (picomatch's alternatives). */
function splitGlobs(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of list) {
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out.map((g) => g.trim()).filter(Boolean);
}
