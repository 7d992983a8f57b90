// Validating a shortcut on the connected phone: open the deeplink; the shortcut works when the activity the package
// manager resolved it to is in front afterwards. Anything else — the phone refuses the URI, another screen opens —
// is a failed validation, and one retires the shortcut.
// Validation happens on the phone a run just finished with, after its work: the screen the run ended on is part of
// its outcome (a task that ends "back on the home screen"), so the phone is put back where it was afterwards.
import type { Device, Foreground, ShortcutRecord } from "../ports.ts";
import { launcherApps } from "./discover.ts";

type ShortcutToValidate = Pick<ShortcutRecord, "uri" | "activity" | "app">;
export type ShortcutValidation = { ok: true } | { ok: false; reason: string };

export async function validateShortcut(device: Device, sc: ShortcutToValidate, settle: () => Promise<void>): Promise<ShortcutValidation> {
  try {
    await device.openDeeplink(sc.uri);
  } catch (e) {
    return { ok: false, reason: `the phone could not open ${sc.uri}: ${(e instanceof Error ? e.message : String(e)).slice(0, 300)}` };
  }
  await settle();
  const fg = await device.foreground().catch(() => null);
  if (fg?.packageName === sc.app && fg.activity === sc.activity) return { ok: true };
  return { ok: false, reason: `${sc.uri} opened ${fg ? `${fg.packageName} ${fg.activity}` : "no known screen"} instead of ${sc.activity}` };
}

const sameScreen = (a: Foreground | null, b: Foreground | null) => a !== null && b !== null && a.packageName === b.packageName && a.activity === b.activity;

/**
 * Validates each shortcut in turn (`record` is told of each verdict as it comes), then puts the phone back on the
 * screen it showed before: home when that was the home screen (no app a person opens from the launcher), else back
 * through what the deeplinks opened, and the app itself opened again when back does not lead there.
 */
export async function validateShortcuts<S extends ShortcutToValidate>(
  device: Device,
  shortcuts: readonly S[],
  settle: () => Promise<void>,
  record: (sc: S, v: ShortcutValidation) => Promise<void>,
): Promise<void> {
  if (!shortcuts.length) return;
  const before = await device.foreground().catch(() => null);
  const apps = await launcherApps(device).catch(() => []);
  const onHome = !before || !apps.some((a) => a.packageName === before.packageName);
  let opened = 0;
  try {
    for (const sc of shortcuts) {
      const v = await validateShortcut(device, sc, settle);
      if (v.ok || !/could not open/.test(v.reason)) opened++;
      await record(sc, v);
    }
  } finally {
    await restoreScreen(device, before, onHome, opened, settle).catch(() => undefined);
  }
}

async function restoreScreen(device: Device, before: Foreground | null, onHome: boolean, opened: number, settle: () => Promise<void>): Promise<void> {
  if (onHome) {
    await device.key("home");
    await settle();
    return;
  }
  // Each deeplink pushed at most its own screen (and its app's first one, when the app was not running).
  let now = await device.foreground().catch(() => null);
  for (let backs = 0; !sameScreen(now, before) && now?.packageName === before!.packageName && backs < opened * 2; backs++) {
    await device.key("back");
    await settle();
    now = await device.foreground().catch(() => null);
  }
  if (!sameScreen(now, before)) {
    await device.openApp(before!.packageName);
    await settle();
  }
}
