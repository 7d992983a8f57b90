// @phoneloop/state/domain: the core's pure rules and words, safe in a browser. Nothing here imports Prisma, pg or
// node modules (the generated client's enums are held equal to these lists by vocabulary.test.ts).
export { StateError, StateErrorCode, isStateError } from "./errors.ts";
export { SKILL_STATUSES, SHORTCUT_STATUSES, LESSON_KINDS, MAX_LESSONS_PER_RUN, type SkillStatus, type ShortcutStatus, type LessonKind } from "./learning.ts";
export { skillStepsOf, skillStepDiff, type SkillStepsView, type SkillStepView, type SkillScreenView, type SkillStepChange } from "./skill-steps.ts";
export { shortcutStatusText, type ShortcutStatusText } from "./shortcut-status.ts";
export { LESSON_SAME_SIMILARITY, MAX_LESSONS_PER_APP_IN_PROMPT, lessonSimilarity, planLessonMerge, type MergeableLesson, type LessonMergePlan } from "./lesson-merge.ts";
export { SUITE_RUN_STATUSES, SUITE_SETTING_ROLES, SuiteRoleSettings, SuiteSettings, isSuccessfulAttempt, settingDifferences, storedSuiteSettings, wilsonInterval, type SettingDifference, type SuiteRunStatus, type SuiteSettingRole, type RateInterval } from "./suite.ts";
export { TAB_TOKEN_IDLE_MS } from "./agent-tokens.ts";
export { systemClock, manualClock, type Clock, type ManualClock } from "./clock.ts";
export {
  TODO_STATES,
  TODO_EVENTS,
  TODO_TRANSITIONS,
  HELD_STATES,
  TERMINAL_STATES,
  legalTodoEvents,
  canTransitionTodo,
  nextTodoState,
  type TodoState,
  type TodoEvent,
} from "./todo-transitions.ts";
export { GOAL_STATUSES, GOAL_TRANSITIONS, nextGoalStatus, type GoalStatus, type GoalEvent } from "./goal-transitions.ts";
export {
  TURN_ROUTES,
  TURN_RESULT_KINDS,
  TURN_RESULT_TRANSITION,
  SPENDING_RESULTS,
  REPAIR_RESULTS,
  decideTurnRoute,
  type TurnRoute,
  type TurnResultKind,
  type TurnRouteDecision,
  type TurnSnapshot,
} from "./turn.ts";
export { RUN_STATUSES, RUN_END_STATUSES, RUN_END_REASONS, RUN_GRADES, type RunGrade, RunEndReasonSchema, type RunStatus, type RunEndStatus, type RunEndReason, resumableStop, isResumable, whyFinal, type RunStop } from "./run.ts";
export {
  TODO_KINDS,
  AGENT_KINDS,
  GATE_STATUSES,
  LEASE_STATUSES,
  EVIDENCE_KINDS,
  SKIP_REASONS,
  CLAIM_REFUSALS,
  type ClaimRefusal,
  type TodoKind,
  type AgentKind,
  type GateStatus,
  type LeaseStatus,
  type EvidenceKind,
  type SkipReason,
} from "./vocabulary.ts";
export {
  EVIDENCE_DATA,
  ObservationData,
  ActionData,
  AnomalyData,
  ValidationData,
  ModelCallData,
  SummaryData,
  GateDecisionData,
  HandoffData,
  CheckpointData,
  ListedElement,
  RecordedAction,
  PolicyRecord,
  GatePolicy,
  PendingGate,
  pendingGateOf,
  StepAction,
  StepOutcome,
  MODEL_SKIPPED,
  type ModelSkipped,
  parseEvidenceData,
  refineEvidenceData,
  readEvidenceData,
  readStepAction,
  readStepOutcome,
  type EvidenceData,
  type EvidenceDataInput,
  type EvidenceBody,
} from "./evidence.ts";
export { todoStatusOf, type TodoStatus, type LeaseStatusView, type GateStatusView, type HolderView } from "./status.ts";
export { ROLES, PERMISSIONS, PERMISSION_HOLDERS, GATE_ANSWER_ROLES, holds, type Role, type Permission } from "./roles.ts";
export { GATE_KINDS, APPROVAL_OPTIONS, gateKindOf, type GateKind, APPROVAL_CATEGORIES, type ApprovalCategory, AFTER_EXPIRY, type AfterExpiry, gateCategoryOf, gateTargetOf } from "./gate.ts";
export { TAKEOVER_REASONS, type TakeoverReason, MASKED_TEXT, PersonAction, type StepActor, personStepAction, personStepWords } from "./gate.ts";
export { PAGE_LIMIT, type Page } from "./page.ts";
