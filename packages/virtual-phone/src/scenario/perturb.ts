// Perturbations: what real phones throw at an agent, added to any scenario as a seeded transform, so a task suite
// can ask "does it still work when …". Each one is plain scenario data (popups, loading times, locale, settings), so
// the runtime, the renderer and the evaluators treat a perturbed scenario like any other; the same seed gives the
// same perturbed phone. They combine: each adds its own popups (ids prefixed "perturb_") or settings.
import type { App, Popup, Scenario } from "./schema.ts";
import { seededRandom } from "./runtime.ts";

export const PERTURBATIONS = ["popup", "permission", "slow", "zh", "rotate", "notification", "network"] as const;
export type Perturbation = (typeof PERTURBATIONS)[number];

/** What each perturbation does, for --help texts and reports. */
export const PERTURBATION_DESCRIPTIONS: Record<Perturbation, string> = {
  popup: "a surprise dialog (\"What's new\") after the 1st to 4th action in each app",
  permission: "the system's notification-permission prompt when an app first opens",
  slow: "every screen loads for 0.4 to 1.5 s behind a skeleton",
  zh: "the phone runs in Chinese (zh-CN): status-bar clock, dates, numbers and currency, and the other perturbations' prompts in Chinese",
  rotate: "the screen is turned to landscape (user_rotation 1 or 3)",
  notification: "a heads-up notification over the top of the screen after the 1st to 3rd action in each app",
  network: "a full-screen \"No connection\" page with Retry after the 2nd to 5th action in each app",
};

export class PerturbationError extends Error {
  readonly code = "UNKNOWN_PERTURBATION";
}

/** "popup,zh" → ["popup", "zh"]; an unknown name throws, naming the ones there are. */
export function parsePerturbations(list: string | readonly string[]): Perturbation[] {
  const names = (typeof list === "string" ? list.split(",") : [...list]).map((s) => s.trim()).filter(Boolean);
  const out: Perturbation[] = [];
  for (const n of names) {
    if (!(PERTURBATIONS as readonly string[]).includes(n)) throw new PerturbationError(`unknown perturbation "${n}"; use any of ${PERTURBATIONS.join(", ")} (comma-separated)`);
    if (!out.includes(n as Perturbation)) out.push(n as Perturbation);
  }
  return out;
}

/** A whole number in [lo, hi] drawn from the seed: the same seed and key give the same number. */
function pick(seed: number, key: string, lo: number, hi: number): number {
  return lo + Math.floor(seededRandom(seed, `perturb:${key}`, 0) * (hi - lo + 1));
}

const PERMISSION_CONTROLLER = "com.android.permissioncontroller";

/** What the perturbations' dialogs say: a phone in Chinese (`zh`) shows its system prompts and banners in Chinese. */
const WORDING = {
  en: {
    permissionTitle: (app: string) => `Allow ${app} to send you notifications?`,
    allow: "Allow",
    deny: "Don't allow",
    popupTitle: (app: string) => `What's new in ${app}`,
    popupMessage: "We've redesigned a few screens to make things easier to find.",
    later: "Not now",
    gotIt: "Got it",
    notificationMessage: "Are we still on for tonight? Let me know when you can.",
    markRead: "Mark as read",
    mute: "Mute",
    offlineTitle: "No connection",
    offlineMessage: (app: string) => `${app} can't reach the internet right now. Check your connection and try again.`,
    retry: "Retry",
  },
  zh: {
    permissionTitle: (app: string) => `要允许“${app}”向您发送通知吗？`,
    allow: "允许",
    deny: "不允许",
    popupTitle: (app: string) => `${app}新功能`,
    popupMessage: "我们重新设计了几个页面，让您更容易找到所需内容。",
    later: "以后再说",
    gotIt: "知道了",
    notificationMessage: "今晚还见面吗？方便时回复我。",
    markRead: "标为已读",
    mute: "静音",
    offlineTitle: "无网络连接",
    offlineMessage: (app: string) => `${app}暂时无法连接到互联网。请检查网络连接后重试。`,
    retry: "重试",
  },
} as const;

function popupsFor(app: App, kinds: readonly Perturbation[], seed: number): Popup[] {
  const out: Popup[] = [];
  const key = (k: string) => `${app.id}:${k}`;
  const w = WORDING[kinds.includes("zh") ? "zh" : "en"];
  if (kinds.includes("permission")) {
    out.push({
      id: "perturb_permission",
      kind: "permission",
      style: "dialog",
      title: w.permissionTitle(app.label),
      buttons: [
        { id: "permission_allow_button", text: w.allow, onTap: [{ do: "log", event: "permission_granted", data: { permission: "POST_NOTIFICATIONS" } }, { do: "dismiss" }] },
        { id: "permission_deny_button", text: w.deny, onTap: [{ do: "dismiss" }] },
      ],
      trigger: { on: "appOpen", once: true },
      dismissOnBack: true,
      package: PERMISSION_CONTROLLER,
    });
  }
  if (kinds.includes("popup")) {
    out.push({
      id: "perturb_popup",
      kind: "custom",
      style: "dialog",
      title: w.popupTitle(app.label),
      message: w.popupMessage,
      buttons: [
        { id: "perturb_popup_later", text: w.later, onTap: [{ do: "dismiss" }] },
        { id: "perturb_popup_ok", text: w.gotIt, onTap: [{ do: "dismiss" }] },
      ],
      trigger: { on: "actions", after: pick(seed, key("popup"), 1, 4), once: true },
      dismissOnBack: true,
    });
  }
  if (kinds.includes("notification")) {
    out.push({
      id: "perturb_notification",
      kind: "custom",
      style: "notification",
      title: "Ana Lima",
      message: w.notificationMessage,
      buttons: [
        { id: "perturb_notification_read", text: w.markRead, onTap: [{ do: "dismiss" }] },
        { id: "perturb_notification_mute", text: w.mute, onTap: [{ do: "dismiss" }] },
      ],
      trigger: { on: "actions", after: pick(seed, key("notification"), 1, 3), once: true },
      dismissOnBack: false,
    });
  }
  if (kinds.includes("network")) {
    out.push({
      id: "perturb_network",
      kind: "custom",
      style: "fullscreen",
      title: w.offlineTitle,
      message: w.offlineMessage(app.label),
      buttons: [{ id: "perturb_network_retry", text: w.retry, onTap: [{ do: "dismiss" }, { do: "loading", ms: 600 }] }],
      trigger: { on: "actions", after: pick(seed, key("network"), 2, 5), once: true },
      dismissOnBack: false,
    });
  }
  return out;
}

/** The scenario with the perturbations added; the scenario itself is left as it was. */
export function perturbScenario(scenario: Scenario, kinds: readonly Perturbation[], seed: number): Scenario {
  if (kinds.length === 0) return scenario;
  const s = structuredClone(scenario);
  s.name = `${scenario.name}+${kinds.join("+")}`;
  s.apps = s.apps.map((app) => ({
    ...app,
    screens: kinds.includes("slow") ? app.screens.map((sc) => ({ ...sc, loadingMs: Math.max(sc.loadingMs ?? 0, pick(seed, `${app.id}:${sc.id}:slow`, 400, 1500)) })) : app.screens,
    // perturbations go first: a trigger that fires together with one of the app's own shows the perturbation
    popups: [...popupsFor(app, kinds, seed), ...app.popups],
  }));
  if (kinds.includes("zh")) s.locale = "zh-CN";
  if (kinds.includes("rotate")) {
    const system = { ...(s.settings?.system as Record<string, unknown> | undefined), accelerometer_rotation: "0", user_rotation: String(pick(seed, "rotate", 0, 1) === 0 ? 1 : 3) };
    s.settings = { ...s.settings, system: system as never };
  }
  return s;
}
