// Reads and checks a scenario: zod for shape, then cross-references (screens, popups, apps) with the path of the bad field.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Scenario, type Action, type App, type Element, type ScenarioInput } from "./schema.ts";
import { isKnownFormat } from "./values.ts";

/** Fields every element type uses (the element's own node: id, content-desc, class, bounds, visibility, state, flags). */
const COMMON_FIELDS = ["type", "id", "desc", "class", "bounds", "visibleIf", "enabled", "selected", "onLongPress", "flags"];

/** The fields each element type draws or acts on; any other field would be silently ignored, so it is rejected. */
export const ELEMENT_FIELDS: Record<Element["type"], string[]> = {
  text: ["text", "style", "color", "height", "onTap"],
  button: ["text", "style", "color", "height", "onTap"],
  input: ["label", "hint", "bind", "password", "multiline", "onSubmit", "color", "height"],
  switch: ["text", "subtitle", "bind", "color", "height", "onTap"],
  checkbox: ["text", "subtitle", "bind", "color", "height", "onTap"],
  item: ["text", "subtitle", "trailing", "icon", "color", "style", "height", "onTap"],
  post: ["text", "author", "handle", "stats", "color", "onTap"],
  list: ["items", "itemsFrom", "template", "where", "empty"],
  wheel: ["values", "bind", "label", "color"],
  row: ["children", "height", "onTap"],
  image: ["icon", "color", "height", "onTap"],
  divider: ["height"],
  chip: ["text", "color", "onTap"],
  spacer: ["height"],
  web: ["items", "height"],
};

/** The styles each element type draws. */
export const ELEMENT_STYLES: Partial<Record<Element["type"], string[]>> = {
  text: ["headline", "title", "body", "caption", "link"],
  button: ["filled", "outlined", "text", "danger"],
  item: ["bold", "plain"],
};

export interface ScenarioIssue {
  path: string;
  message: string;
}

export class ScenarioValidationError extends Error {
  readonly code = "SCENARIO_INVALID";
  constructor(
    readonly source: string,
    readonly issues: ScenarioIssue[],
  ) {
    super(`scenario ${source} is invalid:\n${issues.map((i) => `  at ${i.path || "(root)"}: ${i.message}`).join("\n")}\nFix the field named above and load it again.`);
  }
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

const PACK_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "pack");

/** The built-in pack: every app in pack/apps, every task in pack/tasks. */
export function packInput(): { apps: unknown[]; tasks: unknown[] } {
  const apps = readdirSync(join(PACK_DIR, "apps"))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(PACK_DIR, "apps", f), "utf8")) as unknown);
  const tasks = readdirSync(join(PACK_DIR, "tasks"))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((f) => JSON.parse(readFileSync(join(PACK_DIR, "tasks", f), "utf8")) as unknown[]);
  return { apps, tasks };
}

export interface BuiltinScenario {
  name: string;
  description: string;
  start?: { app: string; screen?: string };
}

export function builtinScenarios(): BuiltinScenario[] {
  return JSON.parse(readFileSync(join(PACK_DIR, "scenarios.json"), "utf8")) as BuiltinScenario[];
}

/** Validates a scenario object; throws ScenarioValidationError listing every bad field. */
export function parseScenario(input: unknown, source = "(inline)"): Scenario {
  let raw = input as ScenarioInput;
  if (raw && typeof raw === "object" && (raw as { extends?: string }).extends === "pack") {
    const pack = packInput();
    const ownApps = (raw.apps ?? []) as { id?: string }[];
    const ownIds = new Set(ownApps.map((a) => a.id));
    const ownTasks = (raw.tasks ?? []) as { id?: string }[];
    const ownTaskIds = new Set(ownTasks.map((t) => t.id));
    // a scenario's own app or task replaces the pack's of the same id (so a parsed scenario parses to itself again)
    raw = { ...raw, apps: [...(pack.apps as { id?: string }[]).filter((a) => !ownIds.has(a.id)), ...ownApps] as never, tasks: [...(pack.tasks as { id?: string }[]).filter((t) => !ownTaskIds.has(t.id)), ...ownTasks] as never };
  }
  const parsed = Scenario.safeParse(raw);
  if (!parsed.success) {
    throw new ScenarioValidationError(
      source,
      parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })),
    );
  }
  const issues = crossCheck(parsed.data);
  if (issues.length) throw new ScenarioValidationError(source, issues);
  return parsed.data;
}

/** A built-in name ("social") or a path to a JSON file. */
export function loadScenario(nameOrPath: string): Scenario {
  const builtin = builtinScenarios().find((s) => s.name === nameOrPath);
  if (builtin) {
    const pack = packInput();
    return parseScenario({ name: builtin.name, description: builtin.description, start: builtin.start, apps: pack.apps, tasks: pack.tasks }, `builtin:${builtin.name}`);
  }
  if (!existsSync(nameOrPath)) {
    throw new ScenarioValidationError(nameOrPath, [
      { path: "", message: `no built-in scenario or file named "${nameOrPath}"; built-in scenarios: ${builtinScenarios().map((s) => s.name).join(", ")}` },
    ]);
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(nameOrPath, "utf8"));
  } catch (e) {
    throw new ScenarioValidationError(nameOrPath, [{ path: "", message: `not valid JSON: ${(e as Error).message}` }]);
  }
  return parseScenario(json, nameOrPath);
}

function crossCheck(s: Scenario): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  const appIds = new Set<string>();
  const packages = new Set<string>();
  s.apps.forEach((app, ai) => {
    const at = `apps[${ai}]`;
    if (appIds.has(app.id)) issues.push({ path: `${at}.id`, message: `duplicate app id "${app.id}"` });
    if (packages.has(app.package)) issues.push({ path: `${at}.package`, message: `duplicate package "${app.package}"` });
    appIds.add(app.id);
    packages.add(app.package);
  });
  const checkActions = (actions: Action[] | undefined, path: string, app: App | null) => {
    actions?.forEach((a, i) => {
      const p = `${path}[${i}]`;
      if (a.do === "navigate" && app && !app.screens.some((sc) => sc.id === a.screen)) issues.push({ path: `${p}.screen`, message: `app "${app.id}" has no screen "${a.screen}"` });
      if (a.do === "showPopup" && app && !app.popups.some((pp) => pp.id === a.popup)) issues.push({ path: `${p}.popup`, message: `app "${app.id}" has no popup "${a.popup}"` });
      if (a.do === "openApp") {
        const target = s.apps.find((x) => x.id === a.app);
        if (!target) issues.push({ path: `${p}.app`, message: `no app with id "${a.app}"` });
        else if (a.screen && !target.screens.some((sc) => sc.id === a.screen)) issues.push({ path: `${p}.screen`, message: `app "${a.app}" has no screen "${a.screen}"` });
      }
      if (a.do === "remove" && a.at !== undefined && a.where) issues.push({ path: p, message: "remove takes `at` (an index) or `where` (a predicate), not both" });
      if (a.do === "if") {
        checkActions(a.then, `${p}.then`, app);
        checkActions(a.else, `${p}.else`, app);
      }
    });
  };
  const checkElements = (els: Element[] | undefined, path: string, app: App) => {
    els?.forEach((e, i) => {
      const p = `${path}[${i}]`;
      checkActions(e.onTap, `${p}.onTap`, app);
      checkActions(e.onLongPress, `${p}.onLongPress`, app);
      checkActions(e.onSubmit, `${p}.onSubmit`, app);
      checkElements(e.children, `${p}.children`, app);
      checkElements(e.items, `${p}.items`, app);
      if (e.template) checkElements([e.template], `${p}.template`, app);
      if (e.type === "list" && !e.items && !(e.itemsFrom && e.template)) issues.push({ path: p, message: "a list needs `items`, or `itemsFrom` with a `template`" });
      if (e.type === "wheel" && !e.values) issues.push({ path: `${p}.values`, message: "a wheel needs the values it scrolls through" });
      if (e.type === "input" && !e.id) issues.push({ path: `${p}.id`, message: "an input needs an id so it can take focus" });
      const allowed = new Set([...COMMON_FIELDS, ...ELEMENT_FIELDS[e.type]]);
      for (const k of Object.keys(e)) {
        if (!allowed.has(k)) issues.push({ path: `${p}.${k}`, message: `a ${e.type} element has no "${k}" (it uses ${ELEMENT_FIELDS[e.type].join(", ")}); remove it or change the type` });
      }
      const styles = ELEMENT_STYLES[e.type];
      if (e.style !== undefined && styles && !styles.includes(e.style)) issues.push({ path: `${p}.style`, message: `a ${e.type} has no style "${e.style}"; use one of ${styles.join(", ")}` });
    });
  };
  s.apps.forEach((app, ai) => {
    const at = `apps[${ai}]`;
    const ids = new Set<string>();
    app.screens.forEach((sc, si) => {
      if (ids.has(sc.id)) issues.push({ path: `${at}.screens[${si}].id`, message: `duplicate screen id "${sc.id}"` });
      ids.add(sc.id);
    });
    if (!ids.has(app.start)) issues.push({ path: `${at}.start`, message: `no screen "${app.start}" in app "${app.id}"` });
    app.screens.forEach((sc, si) => {
      const p = `${at}.screens[${si}]`;
      checkElements(sc.body, `${p}.body`, app);
      if (sc.appBar?.title !== undefined && sc.appBar.search) issues.push({ path: `${p}.appBar.title`, message: "an app bar with a search field shows no title; remove one of them" });
      checkActions(sc.onOpen, `${p}.onOpen`, app);
      checkActions(sc.onBack, `${p}.onBack`, app);
      checkActions(sc.fab?.onTap, `${p}.fab.onTap`, app);
      checkActions(sc.appBar?.search?.onSubmit, `${p}.appBar.search.onSubmit`, app);
      sc.appBar?.actions?.forEach((a, i) => checkActions(a.onTap, `${p}.appBar.actions[${i}].onTap`, app));
      sc.bottomNav?.forEach((b, i) => {
        if (!ids.has(b.screen)) issues.push({ path: `${p}.bottomNav[${i}].screen`, message: `no screen "${b.screen}" in app "${app.id}"` });
      });
    });
    app.popups.forEach((pp, pi) => {
      const p = `${at}.popups[${pi}]`;
      pp.buttons.forEach((b, bi) => checkActions(b.onTap, `${p}.buttons[${bi}].onTap`, app));
      checkElements(pp.items, `${p}.items`, app);
      if (pp.trigger?.screen && !ids.has(pp.trigger.screen)) issues.push({ path: `${p}.trigger.screen`, message: `no screen "${pp.trigger.screen}" in app "${app.id}"` });
      if (pp.trigger?.on === "screen" && !pp.trigger.screen) issues.push({ path: `${p}.trigger.screen`, message: "a screen trigger needs the screen id" });
      if (pp.trigger?.after !== undefined && pp.trigger.on !== "actions") issues.push({ path: `${p}.trigger.after`, message: `"after" counts input actions: it needs on: "actions" (this trigger is "${pp.trigger.on}")` });
    });
    app.deeplinks.forEach((d, di) => {
      if (!ids.has(d.screen)) issues.push({ path: `${at}.deeplinks[${di}].screen`, message: `no screen "${d.screen}" in app "${app.id}"` });
    });
  });
  const taskIds = new Set<string>();
  s.tasks.forEach((t, ti) => {
    const p = `tasks[${ti}]`;
    if (taskIds.has(t.id)) issues.push({ path: `${p}.id`, message: `duplicate task id "${t.id}"` });
    taskIds.add(t.id);
    t.apps.forEach((a, i) => {
      if (!appIds.has(a)) issues.push({ path: `${p}.apps[${i}]`, message: `no app with id "${a}"` });
    });
    const keys = Object.keys(t.params).sort().join(", ");
    t.variants.forEach((v, vi) => {
      const got = Object.keys(v).sort().join(", ");
      if (got !== keys) issues.push({ path: `${p}.variants[${vi}]`, message: `a variant gives every param of the task and no other (${keys || "none"}); this one gives ${got || "none"}` });
    });
    const first = s.apps.find((a) => a.id === t.apps[0]) ?? null;
    checkActions(t.setup, `${p}.setup`, first);
  });
  if (s.start && !appIds.has(s.start.app)) issues.push({ path: "start.app", message: `no app with id "${s.start.app}"` });
  for (const k of Object.keys(s.settings ?? {})) {
    if (!["system", "secure", "global"].includes(k)) issues.push({ path: `settings.${k}`, message: `Android's settings tables are system, secure and global; there is no "${k}"` });
  }
  for (const [i, tag] of (typeof s.locale === "string" ? [s.locale] : (s.locale ?? [])).entries()) {
    const path = typeof s.locale === "string" ? "locale" : `locale[${i}]`;
    try {
      if (Intl.DateTimeFormat.supportedLocalesOf([tag]).length === 0) issues.push({ path, message: `the phone has no data for locale "${tag}"; use a BCP 47 tag like en-US, de-DE, ja-JP or zh-CN` });
    } catch {
      issues.push({ path, message: `"${tag}" is not a BCP 47 locale tag; write it like en-US, de-DE, ja-JP or zh-CN` });
    }
  }
  checkTemplates(s, "", issues);
  return issues;
}

/** Every "{{value | format}}" in the scenario names a format the phone knows. */
function checkTemplates(v: unknown, path: string, issues: ScenarioIssue[]): void {
  if (typeof v === "string") {
    for (const m of v.matchAll(/\{\{[^}|]*\|([^}]*)\}\}/g)) {
      if (!isKnownFormat(m[1]!)) issues.push({ path, message: `unknown format "${m[1]!.trim()}" in "${m[0]}"; use number, number:2, currency:EUR, percent, date, date:long, time or datetime` });
    }
  } else if (Array.isArray(v)) v.forEach((x, i) => checkTemplates(x, `${path}[${i}]`, issues));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) checkTemplates(x, path ? `${path}.${k}` : k, issues);
}
