// Running a skill on a phone: before each step the screen must meet the step's contract, after the last one the
// skill's end contract; every action still passes the permission policy (a step that needs a person ends the skill
// there, as far as it may go: the run takes that step itself, through its gate).
// A failed check is not an error: control goes back to the model with what was missing — after the step has closed a
// popup it did not expect (by the control the checkpoint reads as backing out) and looked for a row further down.
import type { Device, UiNode } from "../ports.ts";
import { decidePermission, isDialogContainer, labelOf, needsGate, type AppRule, type PolicyRules, type SessionApprovals } from "../policy/index.ts";
import { focusedNode, nodeAt } from "../graph/observe.ts";
import { perform } from "../graph/effects.ts";
import { checkContract, describeSelector, findElement, screenState, wheelValue, type ScreenContract, type ScreenState, type SkillBody, type SkillStep } from "./contract.ts";

export interface SkillRunOptions {
  approvals: SessionApprovals;
  rules?: PolicyRules;
  appRules?: AppRule[];
  /** Settles the screen after an action (Device.waitForStable with the run's criterion). */
  settle: () => Promise<void>;
  /** How many times a check reads the screen again (after a settle) before it fails: screens load. */
  checkTries?: number;
  /** Told of each step about to be performed (the runner records it as action evidence); `part` numbers the actions
   *  that are a part of step i, not steps of the skill: scrolls looking for its element and a wheel's further drags
   *  (`seek`), taps closing a popup it did not expect (`popup`). */
  onStep?: (i: number, step: SkillStep, before: ScreenState, px: { x: number; y: number } | null, part?: StepPart) => Promise<void>;
}
export interface StepPart {
  kind: "seek" | "popup";
  n: number;
}

/** How many scrolls down, then up, a step looks for its element in a list before it hands back. */
export const SEEK_SCROLLS = 4;

export type SkillRunResult =
  /** Reached its end screen — or, with `gatedAt`, the step a person must approve (that one is left to the run). */
  | { ok: true; performed: number; found: string[]; gatedAt?: number }
  /** Stopped before step `failedAt` (steps.length: the end contract failed). */
  | { ok: false; performed: number; failedAt: number; reason: string; found: string[] };

const screens = new WeakMap<Device, { width: number; height: number }>();
async function read(device: Device): Promise<{ tree: UiNode; state: ScreenState }> {
  let size = screens.get(device);
  if (!size) {
    size = (await device.info().catch(() => null))?.screen;
    if (size) screens.set(device, size);
  }
  const [tree, fg] = await Promise.all([device.uiTree(), device.foreground().catch(() => null)]);
  return { tree, state: screenState(tree, fg, size) };
}

/** Reads the screen until it meets the contract, settling in between; the last reading and the verdict. */
async function until(device: Device, c: ScreenContract, opts: SkillRunOptions) {
  let r = await read(device);
  let check = checkContract(c, r.state);
  for (let n = 1; !check.ok && n < (opts.checkTries ?? 3); n++) {
    await opts.settle();
    r = await read(device);
    check = checkContract(c, r.state);
  }
  return { ...r, check };
}

/** Scrolls down, then back up past where it started, until the screen meets the step's contract. */
async function seek(device: Device, i: number, step: SkillStep, from: { tree: UiNode; state: ScreenState }, opts: SkillRunOptions) {
  let r = { ...from, check: checkContract(step.before, from.state) };
  let n = 0;
  for (const [direction, times] of [["down", SEEK_SCROLLS], ["up", 2 * SEEK_SCROLLS]] as const) {
    for (let k = 0; k < times && !r.check.ok; k++) {
      const action = { type: "scroll", direction } as const;
      await opts.onStep?.(i, { action, before: step.before }, r.state, null, { kind: "seek", n: n++ });
      await perform(device, action, undefined, { width: r.state.width, height: r.state.height });
      await opts.settle();
      const next = await read(device);
      r = { ...next, check: checkContract(step.before, next.state) };
    }
    if (r.check.ok) break;
  }
  return r;
}

/** How many popups a step closes at most before it hands back. */
export const POPUP_CLOSES = 2;

/**
 * The way out of the top-most dialog or sheet on the screen: its first control the permission checkpoint reads as
 * backing out ("No thanks", "Not now", "Abbrechen", a negative button's id) that needs no person. Null when the
 * screen shows no dialog or the dialog offers no such control (then the step hands back: only the model decides).
 */
export function popupWayOut(tree: UiNode, app: string, opts: Pick<SkillRunOptions, "approvals" | "rules" | "appRules">): { node: UiNode; label: string; px: { x: number; y: number } } | null {
  let top: UiNode | null = null;
  const walk = (n: UiNode) => {
    if (isDialogContainer(n)) top = n;
    else for (const c of n.children) walk(c);
  };
  walk(tree);
  if (!top) return null;
  const controls: UiNode[] = [];
  const collect = (n: UiNode) => {
    if (n.clickable && n.enabled) controls.push(n);
    else for (const c of n.children) collect(c);
  };
  collect(top);
  for (const node of controls) {
    const d = decidePermission({ type: "click" }, { target: node, tree, packageName: app, ...(opts.rules ? { rules: opts.rules } : {}), ...(opts.appRules ? { appRules: opts.appRules } : {}) });
    if (d.tier !== "normal" || d.ruleId !== "target.dismiss" || d.unsure || needsGate(d, opts.approvals)) continue;
    const b = node.bounds;
    return { node, label: labelOf(node), px: { x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) } };
  }
  return null;
}

/** Closes popups the step did not expect while its screen is not there, then reads the screen against its contract again. */
async function closePopups(device: Device, i: number, before: ScreenContract, from: { tree: UiNode; state: ScreenState; check: ReturnType<typeof checkContract> }, opts: SkillRunOptions) {
  let r = from;
  for (let n = 0; n < POPUP_CLOSES && !r.check.ok; n++) {
    const way = popupWayOut(r.tree, r.state.app, opts);
    if (!way) break;
    const action = { type: "click" as const, intent: `close a popup the skill did not expect ("${way.label.slice(0, 60)}")` };
    await opts.onStep?.(i, { action, before }, r.state, way.px, { kind: "popup", n });
    await perform(device, action, way.px, { width: r.state.width, height: r.state.height });
    await opts.settle();
    r = await until(device, before, opts);
  }
  return r;
}

/** How many drags a wheel step makes at most (a minute wheel's far side is 15 drags of 4 rows away). */
export const TURN_DRAGS = 24;

/**
 * Turns a wheel to the step's value: a drag of up to four rows at a time (dragging up shows a later value), as many
 * rows as the distance between numbers, else one row the way the run it came from turned; the first drag is the
 * step's action, the rest are recorded as part of it (`seek`).
 */
async function turn(device: Device, i: number, step: SkillStep, from: ScreenState, opts: SkillRunOptions): Promise<{ ok: true } | { ok: false; reason: string }> {
  const want = step.turnTo!;
  const way = step.action.type === "drag" && step.action.to.y > step.action.from.y ? -1 : 1;
  let state = from;
  for (let n = 0; n <= TURN_DRAGS; n++) {
    const wheel = findElement(step.target!, state.elements)?.element;
    if (!wheel) return { ok: false, reason: `the wheel ${describeSelector(step.target!)} is not on the screen` };
    const shown = wheelValue(wheel, state.elements);
    if (shown === null) return { ok: false, reason: `the wheel ${describeSelector(step.target!)} shows no value` };
    if (shown === want) return { ok: true };
    if (n === TURN_DRAGS) break;
    const [a, b] = [Number(shown), Number(want)];
    const rows = /^\d+$/.test(shown) && /^\d+$/.test(want) && a !== b ? Math.max(-4, Math.min(4, b - a)) : way;
    const row = (wheel.box[3] - wheel.box[1]) / 3;
    const x = Math.round((wheel.box[0] + wheel.box[2]) / 2);
    const y = Math.round(wheel.box[1] + row * 1.5);
    const action = { type: "drag" as const, from: { x, y }, to: { x, y: Math.round(y - row * rows) } };
    await opts.onStep?.(i, { ...step, action }, state, null, n === 0 ? undefined : { kind: "seek", n: n - 1 });
    await perform(device, action, undefined, { width: state.width, height: state.height });
    await opts.settle();
    state = (await read(device)).state;
  }
  return { ok: false, reason: `the wheel ${describeSelector(step.target!)} did not reach "${want}" in ${TURN_DRAGS} drags` };
}

export async function runSkill(device: Device, body: SkillBody, opts: SkillRunOptions): Promise<SkillRunResult> {
  const found: string[] = [];
  for (let i = 0; i < body.steps.length; i++) {
    const step = body.steps[i]!;
    let { tree, state, check } = await until(device, step.before, opts);
    if (!check.ok) ({ tree, state, check } = await closePopups(device, i, step.before, { tree, state, check }, opts));
    if (!check.ok && step.target?.textStarts && checkContract({ ...step.before, required: [] }, state).ok && state.elements.some((e) => e.scrollable)) {
      // The right screen without the row it taps (a row named by its start: of another value, further down): scroll the list to find it.
      ({ tree, state, check } = await seek(device, i, step, { tree, state }, opts));
    }
    if (!check.ok) {
      // A step whose screen is not there while the next one's is was not needed this time (a popup that did not
      // show up to be dismissed): it is skipped. Anything else hands back.
      const next = body.steps[i + 1]?.before ?? body.post;
      if (checkContract(next, state).ok) {
        found.push(`step ${i + 1} skipped: ${check.reason}`);
        continue;
      }
      return { ok: false, performed: i, failedAt: i, reason: check.reason, found };
    }
    let px: { x: number; y: number } | null = null;
    let target: UiNode | undefined;
    if (step.target) {
      const hit = findElement(step.target, state.elements)!;
      found.push(`${describeSelector(step.target)} by ${hit.by.replace("_", " ")}`);
      const b = hit.element.bounds;
      px = { x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) };
      target = nodeAt(tree, px);
    } else if (step.action.type === "input_text" || step.action.type === "keyboard_enter") target = focusedNode(tree);
    const decision = decidePermission(step.action, { ...(target ? { target } : {}), tree, packageName: state.app, ...(opts.rules ? { rules: opts.rules } : {}), ...(opts.appRules ? { appRules: opts.appRules } : {}) });
    // A skill never acts past a person: the run takes that step itself, through its gate.
    if (needsGate(decision, opts.approvals)) return { ok: true, performed: i, found, gatedAt: i };
    if (step.turnTo !== undefined) {
      const turned = await turn(device, i, step, state, opts);
      if (!turned.ok) return { ok: false, performed: i, failedAt: i, reason: turned.reason, found };
      found.push(`${describeSelector(step.target!)} turned to "${step.turnTo}"`);
      continue;
    }
    await opts.onStep?.(i, step, state, px);
    await perform(device, step.action, px ?? undefined, { width: state.width, height: state.height });
    await opts.settle();
  }
  let end = await until(device, body.post, opts);
  if (!end.check.ok) end = await closePopups(device, body.steps.length, body.post, end, opts);
  if (!end.check.ok) return { ok: false, performed: body.steps.length, failedAt: body.steps.length, reason: `the end screen was not reached: ${end.check.reason}`, found };
  return { ok: true, performed: body.steps.length, found };
}
