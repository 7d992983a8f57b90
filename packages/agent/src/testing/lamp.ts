// The lamp scenario for learning tests: a virtual-phone pack where the lamp's switch is on a Controls screen a tap
// away from home, so a run leaves a two-step skill the next run can replay. Variants change the app under the
// skill the way real apps change: "moved" puts Controls behind a More screen (the skill's first tap finds no
// Controls button), "renamed" gives the Controls screen another activity (step 2's expected screen is not found),
// "broken_link" makes the controls deeplink send its opener back home. With `deeplinks`, the app declares lamp://
// links (shortcuts can be learned); with `radio`, the pack has a second app and task (learning of one app must not
// reach another). One scenario and one scripted executor for the agent's,
// the CLI's and the suite's learning tests.
import { fencedRegions } from "../prompts/fence.ts";
import type { RecordedRequest, ScriptedReply } from "./scripted-model-server.ts";

export type LampVariant = "plain" | "moved" | "renamed" | "broken_link";

/** The pack (the virtual phone's scenario format) for one variant. */
export function lampScenario(variant: LampVariant = "plain", opts: { radio?: boolean; deeplinks?: boolean } = {}) {
  const open = (id: string, text: string, screen: string) => ({ type: "button", id, text, onTap: [{ do: "navigate", screen }] });
  const home = [
    { type: "text", text: "Welcome to Lamp" },
    variant === "moved" ? open("open_more", "More", "more") : open("open_controls", "Controls", "controls"),
    open("open_about", "About", "about"),
  ];
  const lamp = {
    id: "lamp",
    package: "com.example.lamp",
    label: "Lamp",
    start: "home",
    state: { on: false },
    screens: [
      { id: "home", appBar: { title: "Lamp" }, body: home },
      { id: "more", activity: ".MoreActivity", appBar: { back: true, title: "More" }, body: [open("open_controls", "Controls", "controls")] },
      { id: "about", activity: ".AboutActivity", appBar: { back: true, title: "About" }, body: [{ type: "text", text: "Lamp 1.0" }] },
      {
        id: "controls",
        activity: variant === "renamed" ? ".LightsActivity" : ".ControlsActivity",
        appBar: { back: true, title: "Controls" },
        body: [{ type: "switch", id: "lamp_switch", text: "Lamp light", bind: "on" }],
        // The broken deeplink: the app sends whoever opens it straight back home.
        ...(variant === "broken_link" ? { onOpen: [{ do: "navigate", screen: "home" }] } : {}),
      },
    ],
    ...(opts.deeplinks
      ? {
          deeplinks: [
            { pattern: "lamp://controls", screen: "controls" },
            { pattern: "lamp://about", screen: "about" },
          ],
        }
      : {}),
  };
  const radio = {
    id: "radio",
    package: "com.example.radio",
    label: "Radio",
    start: "home",
    state: { on: false },
    screens: [{ id: "home", appBar: { title: "Radio" }, body: [{ type: "switch", id: "radio_switch", text: "Radio power", bind: "on" }] }],
  };
  return {
    name: `lamp-${variant}`,
    start: { app: "lamp" },
    apps: opts.radio ? [lamp, radio] : [lamp],
    tasks: [
      { id: "lamp_on", goal: "Turn on the light in Lamp.", apps: ["lamp"], maxSteps: 20, evaluator: { checks: [{ name: "the lamp is on", when: { eq: [{ var: "lamp:on" }, true] } }] } },
      ...(opts.radio
        ? [{ id: "radio_on", goal: "Turn on the power in Radio.", apps: ["radio"], maxSteps: 10, evaluator: { checks: [{ name: "the radio is on", when: { eq: [{ var: "radio:on" }, true] } }] } }]
        : []),
    ],
  };
}

/** A scripted reply holding one action. */
export const replyAction = (action: Record<string, unknown>): ScriptedReply => ({ text: JSON.stringify(action) });
/** The screen the executor was shown last (the prompt's last fenced region). */
export const screenOf = (req: RecordedRequest): string => fencedRegions(req.lastUserText).at(-1) ?? "";
/** The element number of the first screen line matching `test`, as the executor's prompt numbers them. */
export function elementOn(req: RecordedRequest, test: RegExp): string | undefined {
  for (const line of screenOf(req).split("\n")) if (test.test(line)) return /^\[(\d+)\]/.exec(line)?.[1];
  return undefined;
}
/** The lamp skill the executor's prompt offers, if any. */
export const offeredLampSkill = (req: RecordedRequest): string | undefined =>
  /SKILLS \(/.test(req.lastUserText) ? /- "([^"]+)" \(com\.example\.lamp\)/.exec(req.lastUserText)?.[1] : undefined;

/**
 * An executor for one run: takes an offered skill once and, without one (or after it handed back), finds its way
 * — exploring About first, so a run without the skill takes a detour the skill does not.
 */
export function lampExecutor(): (req: RecordedRequest) => ScriptedReply {
  let explored = false;
  let skillTried = false;
  let switched = false;
  return (req) => {
    if (/The skill "[^"]+" ran its/.test(req.lastUserText)) return replyAction({ type: "status", status: "complete", summary: "The skill turned the lamp on." });
    const skill = offeredLampSkill(req);
    if (skill && !skillTried) {
      skillTried = true;
      return replyAction({ type: "use_skill", skill, intent: "replay the path that worked before" });
    }
    const sw = elementOn(req, /id="?lamp_switch/);
    if (sw && (switched || /"ON" id="?lamp_switch/.test(screenOf(req)))) return replyAction({ type: "status", status: "complete", summary: "The lamp is on." });
    if (sw) {
      switched = true;
      return replyAction({ type: "click", element: sw, intent: "switch the lamp on" });
    }
    const about = elementOn(req, /id="?open_about/);
    if (about && !explored && !skill) {
      explored = true;
      return replyAction({ type: "click", element: about, intent: "look around" });
    }
    if (/Lamp 1\.0/.test(screenOf(req))) return replyAction({ type: "navigate_back", intent: "back home" });
    const controls = elementOn(req, /id="?open_controls/);
    if (controls) return replyAction({ type: "click", element: controls, intent: "open the controls" });
    const more = elementOn(req, /id="?open_more/);
    if (more) return replyAction({ type: "click", element: more, intent: "the controls moved under More" });
    return replyAction({ type: "navigate_back" });
  };
}
