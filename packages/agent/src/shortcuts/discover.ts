// Deeplink shortcuts from the phone's package manager: the launcher apps (package and label), an app's version, and
// the VIEW intent filters with a host (scheme://host/path) it declares, each with the activity it resolves to — the
// screen that must appear when it is opened. A filter without a host (mailto:, sms:) needs a value to mean
// anything, so it is no shortcut.
import type { Device } from "../ports.ts";

export interface LauncherApp {
  packageName: string;
  label: string;
}

export interface AppManifest {
  packageName: string;
  /** versionName and versionCode: skills and shortcuts belong to one. */
  version: string;
  shortcuts: { uri: string; activity: string }[];
}

const fullActivity = (pkg: string, name: string) => (name.startsWith(".") ? `${pkg}${name}` : name);

/** `query-activities` for the launcher intent: every app a person can open, with its label. */
export function parseLauncherApps(out: string): LauncherApp[] {
  const apps: LauncherApp[] = [];
  for (const block of out.split(/\n\s*Activity #\d+:/).slice(1)) {
    const pkg = /packageName=(\S+)/.exec(block)?.[1];
    const label = /nonLocalizedLabel=(.+?)(?: icon=|$)/m.exec(block)?.[1]?.trim();
    if (pkg && !apps.some((a) => a.packageName === pkg)) apps.push({ packageName: pkg, label: label && label !== "null" ? label : pkg });
  }
  return apps;
}

/** `dump <package>`: its version and the deeplinks its VIEW filters declare with a host. */
export function parsePackageDump(pkg: string, out: string): AppManifest | null {
  const name = /versionName=(\S+)/.exec(out)?.[1];
  const code = /versionCode=(\d+)/.exec(out)?.[1];
  if (!name && !code) return null;
  const version = `${name ?? "?"} (${code ?? "?"})`;
  const schemesAt = out.indexOf("  Schemes:");
  const shortcuts: AppManifest["shortcuts"] = [];
  if (schemesAt >= 0) {
    const section = out.slice(schemesAt).split(/\n\s*\n/)[0]!;
    const filters = section.split(/\n(?=\s+[0-9a-f]+ \S+\/\S+ filter [0-9a-f]+)/).slice(1);
    for (const f of filters) {
      const component = /^\s+[0-9a-f]+ (\S+)\/(\S+) filter/.exec(f);
      if (!component || component[1] !== pkg) continue;
      if (!/Action: "android\.intent\.action\.VIEW"/.test(f)) continue;
      const scheme = /Scheme: "([^"]+)"/.exec(f)?.[1];
      const host = /Authority: "([^"]+)"/.exec(f)?.[1];
      if (!scheme || !host) continue;
      const path = /Path: "PatternMatcher\{(?:PREFIX|LITERAL): ([^}]*)\}"/.exec(f)?.[1] ?? "";
      const uri = `${scheme}://${host}${path}`;
      if (!shortcuts.some((s) => s.uri === uri)) shortcuts.push({ uri, activity: fullActivity(pkg, component[2]!) });
    }
  }
  return { packageName: pkg, version, shortcuts };
}

const LAUNCHER_QUERY = ["query-activities", "-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER"] as const;

export async function launcherApps(device: Device): Promise<LauncherApp[]> {
  if (!device.packageManager) return [];
  return parseLauncherApps(await device.packageManager([...LAUNCHER_QUERY]));
}

export async function appManifest(device: Device, packageName: string): Promise<AppManifest | null> {
  if (!device.packageManager) return null;
  return parsePackageDump(packageName, await device.packageManager(["dump", packageName]));
}

const words = (s: string) => s.toLocaleLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** The apps a goal is about: those it names (by label or package), and the app in front when it is one of them or none is named. */
export function appsOfGoal(goal: string, apps: readonly LauncherApp[], foreground: string | null): LauncherApp[] {
  const g = ` ${words(goal).join(" ")} `;
  const named = apps.filter((a) => g.includes(` ${words(a.label).join(" ")} `) || g.includes(` ${words(a.packageName.split(".").at(-1) ?? "").join(" ")} `));
  const front = apps.find((a) => a.packageName === foreground);
  if (front && !named.includes(front) && !named.length) return [front];
  return named;
}
