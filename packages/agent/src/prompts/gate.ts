// The question a person answers at a gate. What the screen shows is quoted; what the agent's model wrote (its
// stated intent, the text it wants to type) is labelled as the model's own words, never stated as fact. A step a
// skill takes (the runtime, not the model, chose it) says which skill and step it is instead of a model's intent.
import { describeAction, type Action, type TakeoverReason } from "../actions/schema.ts";
import type { PermissionDecision } from "../policy/index.ts";
import { neutraliseInline } from "./fence.ts";

const quote = (s: string, n: number) => JSON.stringify(neutraliseInline(s.length > n ? `${s.slice(0, n - 1)}…` : s));

/** The skill whose step this is, when the runtime takes it (`step` counts from 1). */
export interface SkillStepOrigin {
  skill: string;
  step: number;
}

export function gateQuestion(a: Action, d: PermissionDecision, app: string, todo: string, bySkill?: SkillStepOrigin): string {
  const what = describeAction(a).split(" ")[0];
  const target = d.targetLabel ? ` on ${quote(d.targetLabel, 60)}` : "";
  const tier = d.tier === "high_risk" ? "high-risk" : "confirm-tier";
  const whose = bySkill ? "a value the model gave the skill" : "the model's text";
  const typed = "text" in a && typeof a.text === "string" && (a.type === "input_text" || a.type === "click_then_type") ? ` It would type (${whose}): ${quote(a.text, 120)}.` : "";
  const uri = a.type === "open_deeplink" ? ` The link (the model's text): ${quote(a.uri, 160)}.` : "";
  const intent = bySkill
    ? ` This is step ${bySkill.step} of the skill ${quote(bySkill.skill, 120)}, learnt from an earlier run; the runtime takes it, not the model.`
    : a.intent
      ? ` The agent's model says it intends to (its own words, unverified): ${quote(a.intent, 160)}.`
      : "";
  return `Allow the agent to ${what}${target} in ${app || "the current app"}? This is a ${tier} action (${d.kind}). What the checkpoint saw: ${d.evidence.join("; ")}.${typed}${uri}${intent} Todo: ${quote(todo, 160)}. (policy ${d.policyVersion}, rule ${d.ruleId})`;
}

/** The core accepts gate questions of 8 to 2000 characters; the longest model question kept, before quoting. */
const MAX_ASKED = 1000;
const MAX_GATE_QUESTION = 2000;

/**
 * The model's own question (ask_user) as a gate question: labelled as the agent's words and quoted, so a short,
 * empty or overlong question still makes a question the core accepts and the run never fails on it.
 */
export function askedQuestion(question: string): string {
  const said = neutraliseInline(question).replace(/\s+/g, " ").trim();
  const q = `The agent asks: ${quote(said || "(the agent's model asked without saying what)", MAX_ASKED)}`;
  return q.length > MAX_GATE_QUESTION ? `${q.slice(0, MAX_GATE_QUESTION - 1)}…` : q;
}

/** What a person is asked to do at a takeover, per reason, in a person's words. */
const TAKEOVER_ASK: Record<TakeoverReason, string> = {
  login: "Please sign in on the phone: the agent was not given the password.",
  captcha: "Please solve the captcha on the phone.",
  one_time_code: "Please enter the one-time code on the phone: it was sent to you.",
  blind_screen: "Please take over the phone: its screen cannot be seen by the agent (the screenshot is black or the app protects its window).",
  other: "Please take over the phone: this step needs a person.",
};

/** The gate question of an ask_takeover: the ask for its reason, then the agent's own words, quoted. */
export function takeoverQuestion(a: Extract<Action, { type: "ask_takeover" }>): string {
  const said = neutraliseInline(a.question).replace(/\s+/g, " ").trim();
  const q = `${TAKEOVER_ASK[a.reason]} Take over, then hand the phone back. The agent says: ${quote(said || "(nothing more)", MAX_ASKED)}`;
  return q.length > MAX_GATE_QUESTION ? `${q.slice(0, MAX_GATE_QUESTION - 1)}…` : q;
}
