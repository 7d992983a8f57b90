// The product's words for states, in the order work flows.
import type { RouterOutputs } from "@phoneloop/client";
import type { TakeoverReason } from "@phoneloop/state/domain";

export type Board = RouterOutputs["board"]["get"];
export type BoardCard = Board["lanes"][number]["cards"][number];
export type TodoState = BoardCard["state"];
export type AttentionItem = RouterOutputs["board"]["attention"]["items"][number];
export type GoalSummary = RouterOutputs["board"]["goals"]["items"][number];

export const LANE_ORDER: TodoState[] = ["pending", "claimed", "running", "validating", "blocked", "failed", "done", "superseded"];

export const LANE_LABEL: Record<TodoState, string> = {
  pending: "Pending",
  claimed: "Claimed",
  running: "Running",
  validating: "Validating",
  blocked: "Blocked",
  failed: "Failed",
  done: "Done",
  superseded: "Superseded",
};

export const LANE_HINT: Record<TodoState, string> = {
  pending: "Waiting for an agent to claim",
  claimed: "Leased, not started",
  running: "On the phone now",
  validating: "Result being checked",
  blocked: "Someone else must act",
  failed: "Cannot be done as written",
  done: "Validated and written back",
  superseded: "Replaced by a replan",
};

export function formatMicroUsd(micro: number): string {
  if (micro === 0) return "$0";
  const usd = micro / 1_000_000;
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function formatAgo(at: Date, now: number): string {
  const s = Math.max(0, Math.floor((now - at.getTime()) / 1000));
  if (s < 60) return "just now";
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} days ago`;
}

export function whoLabel(who: AttentionItem["who"]): string {
  switch (who.kind) {
    case "members":
      return who.roles.length ? `${/^[aeiou]/.test(who.roles[0]!) ? "an" : "a"} ${who.roles.join(" or ")}` : "a team member";
    case "agents":
      return who.capabilities.length ? `an agent with ${who.capabilities.join(", ")}` : "any agent";
    case "planner":
      return "the planner";
  }
}

/** Why the agent asks a person to take over the phone (its typed ask), in words. */
export const TAKEOVER_REASON_WORDS: Record<TakeoverReason, string> = {
  login: "a sign-in only you can do",
  captcha: "a captcha",
  one_time_code: "a one-time code sent to you",
  blind_screen: "a screen the agent cannot see (it screenshots black or is marked secure)",
  other: "something only a person can do",
};
