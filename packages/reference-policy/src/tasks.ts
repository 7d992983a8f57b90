// Which task of the virtual phone's pack a goal is: each task's goal template (`Turn off Wi-Fi.`, `Connect to the
// Wi-Fi network '{ssid}'.`) read as a pattern, so a goal written from the template with other values is recognised
// too and its values are read back from the goal's own words.
import { loadScenario, type Task } from "@phoneloop/virtual-phone";

export interface MatchedTask {
  task: Task;
  /** The task's parameters as the goal states them. */
  params: Record<string, string>;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function templatePattern(template: string): RegExp {
  const parts = template.split(/(\{\w+\})/);
  const source = parts.map((p) => (/^\{\w+\}$/.test(p) ? `(?<${p.slice(1, -1)}>.+?)` : escape(p))).join("");
  return new RegExp(`^\\s*${source}\\s*$`, "s");
}

let pack: { task: Task; pattern: RegExp }[] | undefined;

/** The built-in pack's tasks (the same in every built-in scenario). */
export function packTasks(): Task[] {
  pack ??= loadScenario("home").tasks.map((task) => ({ task, pattern: templatePattern(task.goal) }));
  return pack.map((p) => p.task);
}

/** The pack's task this goal states, with its parameters; null for a goal that is none of them. */
export function matchTask(goal: string): MatchedTask | null {
  packTasks();
  // The goal as written first (its values exactly), then both sides in NFKC (a prompt may normalise punctuation).
  for (const { task, pattern } of pack!) {
    const m = pattern.exec(goal.trim()) ?? templatePattern(task.goal.normalize("NFKC")).exec(goal.normalize("NFKC").trim());
    if (m) return { task, params: { ...(m.groups ?? {}) } };
  }
  return null;
}

let packages: Map<string, string> | undefined;

/** The package of a pack app by its launcher label ("Settings" → its package), for `open_app`. */
export function packageOf(label: string): string | null {
  packages ??= new Map(loadScenario("home").apps.map((a) => [a.label.toLowerCase(), a.package]));
  return packages.get(label.toLowerCase()) ?? null;
}
