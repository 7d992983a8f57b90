// Which tasks a suite runs: the virtual phone's built-in pack, or every scenario file of a folder, filtered by a
// glob over task ids (picomatch: `settings_*`, `{mail,notes}_*`, `*`; several globs comma-separated).
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import picomatch from "picomatch";
import { loadScenario, taskGoal } from "@phoneloop/virtual-phone";

export interface SuiteTask {
  id: string;
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

/** Every task of the pack (no folder) or of the folder's scenario files, in file then task order; none that needs a person. */
export function availableTasks(scenariosDir?: string): SuiteTask[] {
  if (!scenariosDir) return loadScenario(PACK_SCENARIO).tasks.filter(unattended).map((t) => ({ id: t.id, goal: taskGoal(t), maxSteps: t.maxSteps, scenario: PACK_SCENARIO }));
  const dir = resolve(scenariosDir);
  let files: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a folder");
    files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  } catch (e) {
    throw new TaskSelectionError(`--scenarios ${scenariosDir}: ${(e as Error).message}; give a folder of scenario JSON files.`);
  }
  const seen = new Map<string, string>();
  const out: SuiteTask[] = [];
  for (const f of files) {
    const path = join(dir, f);
    for (const t of loadScenario(path).tasks.filter(unattended)) {
      const other = seen.get(t.id);
      if (other) throw new TaskSelectionError(`task "${t.id}" is in both ${other} and ${f}; a suite names each task once, so rename one of them.`);
      seen.set(t.id, f);
      out.push({ id: t.id, goal: taskGoal(t), maxSteps: t.maxSteps, scenario: path });
    }
  }
  if (!out.length) throw new TaskSelectionError(`--scenarios ${scenariosDir}: no scenario file there has tasks (each *.json is a scenario; see packages/virtual-phone/README.md).`);
  return out;
}

/** The tasks whose ids match the glob (or any of several, comma-separated). */
export function selectTasks(glob: string, scenariosDir?: string): SuiteTask[] {
  const all = availableTasks(scenariosDir);
  const globs = splitGlobs(glob);
  const match = picomatch(globs.length ? globs : ["*"]);
  const picked = all.filter((t) => match(t.id));
  if (!picked.length) throw new TaskSelectionError(`no task matches --tasks ${glob}; the tasks are: ${all.map((t) => t.id).join(", ")}`);
  return picked;
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
