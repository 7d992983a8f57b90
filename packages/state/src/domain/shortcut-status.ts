// A shortcut's status in words for people: what its last try on a phone showed and what to do about it. The runtime
// records a failed try's reason as the phone gave it (`am start`'s output, the screen that opened instead); the
// known failures are mapped here, once, so no reader shows raw `am start` text.
import type { ShortcutStatus } from "./learning.ts";

export interface ShortcutStatusText {
  /** What the status means for this shortcut, in a sentence. */
  summary: string;
  /** What a person can do about it; null when nothing is needed. */
  whatToDo: string | null;
}

const RETIRED = "Runs are no longer offered it.";
const KNOWN: { test: RegExp; summary: (s: { uri: string; activity: string; found: string | null }) => string; whatToDo: string }[] = [
  {
    test: /unable to resolve intent|no activity found|activitynotfoundexception/i,
    summary: () => `No app on the phone opens this link. ${RETIRED}`,
    whatToDo: "Check that the app version that declares it is installed on the phone; when a new version of the app is found, its shortcuts are tried again.",
  },
  {
    test: /activity class .* does not exist|class not found|does not exist/i,
    summary: (s) => `The screen this link names (${s.activity}) is not in the installed app. ${RETIRED}`,
    whatToDo: "Nothing to do if the app changed its screens: the next app version's shortcuts are tried afresh.",
  },
  {
    test: /permission denial|securityexception|not exported|requires permission/i,
    summary: () => `The app does not let other apps open this screen. ${RETIRED}`,
    whatToDo: "Nothing to do: runs reach this screen by tapping through the app.",
  },
  {
    test: /device (offline|not found)|no devices|closed|econn|timed? ?out/i,
    summary: () => `The phone stopped answering while this link was tried. ${RETIRED}`,
    whatToDo: "Reconnect the phone; a new app version's shortcuts are tried on the next run in the app.",
  },
];

/** The words for a shortcut's status and, when its try failed, the known failure its reason names. */
export function shortcutStatusText(s: { status: ShortcutStatus; reason: string | null; uri: string; activity: string }): ShortcutStatusText {
  if (s.status === "discovered") return { summary: "Not tried yet: the next run in this app tries it on its phone after its work.", whatToDo: null };
  if (s.status === "validated") return { summary: `Works: it opens ${s.activity}. The planner is offered it.`, whatToDo: null };
  const reason = s.reason ?? "";
  const opened = /opened (.+) instead of /.exec(reason);
  const found = opened?.[1] ?? null;
  if (found && found !== "no known screen") {
    return { summary: `The link opened another screen (${found}) instead of ${s.activity}. ${RETIRED}`, whatToDo: "The app may want a sign-in or a first-run screen before this one: runs reach it by tapping through the app." };
  }
  if (found) return { summary: `Nothing the app declares appeared after opening the link. ${RETIRED}`, whatToDo: "Open the link on the phone yourself to see what it does; runs reach the screen by tapping through the app." };
  const known = KNOWN.find((k) => k.test.test(reason));
  if (known) return { summary: known.summary({ uri: s.uri, activity: s.activity, found }), whatToDo: known.whatToDo };
  return { summary: `The link did not open ${s.activity} when a run tried it. ${RETIRED}`, whatToDo: "Open the link on the phone yourself to see what it does; runs reach the screen by tapping through the app." };
}
