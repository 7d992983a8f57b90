// Validating a shortcut on the connected phone: open the deeplink; the shortcut works when the activity the package
// manager resolved it to is in front afterwards. Anything else — the phone refuses the URI, another screen opens —
// is a failed validation, and one retires the shortcut.
import type { Device, ShortcutRecord } from "../ports.ts";

export async function validateShortcut(device: Device, sc: Pick<ShortcutRecord, "uri" | "activity" | "app">, settle: () => Promise<void>): Promise<{ ok: true } | { ok: false; reason: string }> {
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
