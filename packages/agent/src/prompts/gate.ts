// The question a person answers at a gate. What the screen shows is quoted; what the agent's model wrote (its
// stated intent, the text it wants to type) is labelled as the model's own words, never stated as fact.
import { describeAction, type Action } from "../actions/schema.ts";
import type { PermissionDecision } from "../policy/index.ts";
import { neutraliseInline } from "./fence.ts";

const quote = (s: string, n: number) => JSON.stringify(neutraliseInline(s.length > n ? `${s.slice(0, n - 1)}…` : s));

export function gateQuestion(a: Action, d: PermissionDecision, app: string, todo: string): string {
  const what = describeAction(a).split(" ")[0];
  const target = d.targetLabel ? ` on ${quote(d.targetLabel, 60)}` : "";
  const tier = d.tier === "high_risk" ? "high-risk" : "confirm-tier";
  const typed = "text" in a && typeof a.text === "string" && (a.type === "input_text" || a.type === "click_then_type") ? ` It would type (the model's text): ${quote(a.text, 120)}.` : "";
  const uri = a.type === "open_deeplink" ? ` The link (the model's text): ${quote(a.uri, 160)}.` : "";
  const intent = a.intent ? ` The agent's model says it intends to (its own words, unverified): ${quote(a.intent, 160)}.` : "";
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
