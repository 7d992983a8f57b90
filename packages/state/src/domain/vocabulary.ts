// The plain word lists of the rows the core stores. The Prisma enums of prisma/schema.prisma match these
// (vocabulary.test.ts holds them equal), so pure code can use them without the generated client.
export const TODO_KINDS = [
  "executor", // needs a live app on the phone
  "host", // answered without a screen (a lookup, a summary)
] as const;
export type TodoKind = (typeof TODO_KINDS)[number];

export const AGENT_KINDS = [
  "browser", // a web page's tab driving a phone over WebUSB/WebSocket
  "headless", // a process (the CLI's agent, a worker) driving a phone over adb
] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

export const GATE_STATUSES = ["open", "approved", "denied", "answered", "expired"] as const;
export type GateStatus = (typeof GATE_STATUSES)[number];

export const LEASE_STATUSES = ["active", "released", "expired", "transferred"] as const;
export type LeaseStatus = (typeof LEASE_STATUSES)[number];

export const EVIDENCE_KINDS = ["observation", "action", "anomaly", "validation", "model_call", "summary", "gate_decision", "handoff", "checkpoint"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** Why should-run says skip. */
export const SKIP_REASONS = ["goal_paused", "goal_cancelled", "goal_completed", "gate_waiting", "todo_blocked", "todo_finished", "exhausted", "throttled"] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** Why a claim was refused while work waits (the runtime waits, never retries at once): a WIP limit was reached. */
export const CLAIM_REFUSALS = ["wip_limit"] as const;
export type ClaimRefusal = (typeof CLAIM_REFUSALS)[number];
