// @phoneloop/state: the only code that changes PhoneLoop's state. Every operator is (db, input, ctx?) → result
// in one transaction with one Event row; its zod input schema is exported under the same name as its input type
// (the API reuses them as tRPC inputs). Projections are read-only.
export { createDb, poolOf, type Db } from "./db/client.ts";
export { applyMigrations, redact, MIGRATIONS_DIR } from "./db/migrate.ts";
export { startEmbeddedPostgres, passwordFileOf, type EmbeddedPostgresInit, type RunningPostgres } from "./db/embedded-postgres.ts";
export { provisionProductDatabase, type ProvisionInit } from "./db/provision.ts";
export { readOrCreateSecret } from "./db/secret-file.ts";
export type { Goal, Todo, Lease, Gate, Evidence, Run, Step, Agent, Turn, Replan, Workspace, Membership, AgentToken, Share } from "./generated/prisma/client.ts";

// domain: pure rules and words (also the browser-safe subpath @phoneloop/state/domain)
export * from "./domain/index.ts";
export { validatedBy } from "./domain/input.ts";
export { PAGE_LIMIT, PageFields, Cursor, pageOf, type Page } from "./domain/page.ts";
export { RoleSchema, Text, isStorableText, Id, EventId, Count, BigCount, StoredDate, JSON_CAPS, jsonValue, jsonObject } from "./domain/schemas.ts";

// services: the operators
export type { DbOrTx, Tx, OperatorContext } from "./services/operator.ts";
export { EventHorizon, type HorizonQueryable } from "./services/event-horizon.ts";
export { DEFAULT_EVENT_RETENTION_DAYS, EVENTS_KEPT_AS_STATE, eventsPruned, eventsPrunedThrough, pruneEvents, PruneEventsInput, type PruneEventsResult } from "./services/event-retention.ts";
export { createGoal, CreateGoalInput } from "./services/goal/create-goal.ts";
export { updateGoal, UpdateGoalInput } from "./services/goal/update-goal.ts";
export { GoalStatusChangeInput } from "./services/goal/transition-goal.ts";
export { pauseGoal, PauseGoalInput } from "./services/goal/pause-goal.ts";
export { resumeGoal, ResumeGoalInput } from "./services/goal/resume-goal.ts";
export { cancelGoal, CancelGoalInput } from "./services/goal/cancel-goal.ts";
export { completeGoal, CompleteGoalInput } from "./services/goal/complete-goal.ts";

export { addTodos, AddTodosInput, TodoDraft } from "./services/todo/add-todos.ts";
export { replanTodos, ReplanTodosInput, ReplanOp, type ReplanTodosResult } from "./services/todo/replan-todos.ts";
export { DEFAULT_LEASE_TTL_MS, type ClaimResult, type ClaimRefusal } from "./services/todo/claim-result.ts";
export { claimNext, ClaimNextInput } from "./services/todo/claim-next.ts";
export { claimTodo, ClaimTodoInput } from "./services/todo/claim-todo.ts";
export { startTodo, StartTodoInput } from "./services/todo/start-todo.ts";
export { validateTodo, ValidateTodoInput } from "./services/todo/validate-todo.ts";
export { writebackTodo, WritebackTodoInput } from "./services/todo/writeback-todo.ts";
export { completeTodo, CompleteTodoInput } from "./services/todo/complete-todo.ts";
export { failTodo, FailTodoInput } from "./services/todo/fail-todo.ts";
export { blockTodo, BlockTodoInput } from "./services/todo/block-todo.ts";
export { retryTodo, RetryTodoInput } from "./services/todo/retry-todo.ts";
export { reopenTodo, ReopenTodoInput } from "./services/todo/reopen-todo.ts";
export type { TransitionResult } from "./services/todo/held.ts";

export { renewLease, RenewLeaseInput } from "./services/lease/renew-lease.ts";
export { releaseLease, ReleaseLeaseInput } from "./services/lease/release-lease.ts";
export { transferLease, TransferLeaseInput } from "./services/lease/transfer-lease.ts";

export { openGate, OpenGateInput, type OpenGateResult } from "./services/gate/open-gate.ts";
export { resolveGate, ResolveGateInput } from "./services/gate/resolve-gate.ts";
export { expireGate, ExpireGateInput } from "./services/gate/expire-gate.ts";
export { decideBatch, DecideBatchInput, type BatchDecisionResult } from "./services/gate/decide-batch.ts";
export { takeOver, TakeOverInput, recordPersonStep, RecordPersonStepInput, handBack, HandBackInput, type TakeOverResult, type PersonStepResult, type HandBackResult } from "./services/gate/takeover.ts";
export {
  setApprovalRule,
  SetApprovalRuleInput,
  approvalRules,
  ApprovalRulesInput,
  defaultApprovalRule,
  type ApprovalRuleView,
} from "./services/approval-rule/approval-rules.ts";
export { setWipLimits, SetWipLimitsInput, wipLimits, WipLimitsInput, WIP_LANES, MAX_WIP_LIMIT, type WipLane, type WipLimitsView } from "./services/wip-limit/wip-limits.ts";

export { appendEvidence, AppendEvidenceInput, type AppendEvidenceResult } from "./services/evidence/append-evidence.ts";
export { putBlob, PutBlobInput, MAX_BLOB_BYTES, sha256Of, type PutBlobResult, type BlobContext } from "./services/blob/put-blob.ts";
export { findBlob, openBlob, getBlob, type BlobInfo, type BlobScope, type OpenedBlob } from "./services/blob/read-blob.ts";
export { collectBlobs, CollectBlobsInput, DEFAULT_BLOB_GRACE_MS, type CollectBlobsResult } from "./services/blob/collect-blobs.ts";
export { useBlobStore, blobStoreOf, type BlobStore, type BlobBody, type StoredObject } from "./blobs/blob-store.ts";
export { postgresBlobStore } from "./blobs/postgres-blob-store.ts";
export { s3BlobStore, type S3BlobStoreConfig } from "./blobs/s3-blob-store.ts";

export { setQuotaPolicy, SetQuotaPolicyInput, type QuotaPolicyView } from "./services/quota/set-quota-policy.ts";
export { spendQuota, SpendQuotaInput, type SpendQuotaResult, type QuotaSpendView } from "./services/quota/spend-quota.ts";
export { reserveQuota, ReserveQuotaInput, type ReserveQuotaResult, type QuotaReservationView } from "./services/quota/reserve-quota.ts";
export { settleQuota, SettleQuotaInput, type SettleQuotaResult } from "./services/quota/settle-quota.ts";
export { shouldRun, ShouldRunInput, type ShouldRunResult } from "./services/quota/should-run.ts";
export type { PolicyUsage, Amounts } from "./services/quota/usage.ts";

export { registerAgent, RegisterAgentInput } from "./services/agent/register-agent.ts";
export { heartbeatAgent, HeartbeatAgentInput } from "./services/agent/heartbeat-agent.ts";
export { startRun, StartRunInput } from "./services/run/start-run.ts";
export { appendStep, AppendStepInput } from "./services/run/append-step.ts";
export { recordStep, RecordStepInput, type RecordStepResult } from "./services/run/record-step.ts";
export { saveCheckpoint, SaveCheckpointInput } from "./services/run/save-checkpoint.ts";
export { resumeRun, ResumeRunInput } from "./services/run/resume-run.ts";
export { finishRun, FinishRunInput } from "./services/run/finish-run.ts";
export { gradeRun, GradeRunInput } from "./services/run/grade-run.ts";
export { reapRuns, ReapRunsInput, DEFAULT_AGENT_STALE_MS, type ReapedRun } from "./services/run/reap-runs.ts";
export { expireGates, ExpireGatesInput } from "./services/gate/expire-gates.ts";

export { routeTurn, RouteTurnInput } from "./services/turn/route-turn.ts";
export { recordTurnResult, RecordTurnResultInput, type RecordTurnResultResult, type TurnTransition } from "./services/turn/record-turn-result.ts";

export { createWorkspace, CreateWorkspaceInput } from "./services/workspace/create-workspace.ts";
export {
  addMember,
  AddMemberInput,
  setMemberRole,
  SetMemberRoleInput,
  removeMember,
  RemoveMemberInput,
  listMembers,
  ListMembersInput,
  membershipsOf,
} from "./services/workspace/members.ts";
export {
  AGENT_TOKEN_PREFIX,
  issueAgentToken,
  IssueAgentTokenInput,
  verifyAgentToken,
  agentTokenStanding,
  revokeAgentToken,
  RevokeAgentTokenInput,
  reassignAgentToken,
  ReassignAgentTokenInput,
  REVOKED_REASONS,
  type RevokedReason,
  listAgentTokens,
  ListAgentTokensInput,
  type VerifiedAgentToken,
  type AgentTokenView,
} from "./services/workspace/agent-tokens.ts";
export {
  SHARE_TOKEN_PREFIX,
  createShare,
  CreateShareInput,
  revokeShare,
  RevokeShareInput,
  listShares,
  ListSharesInput,
  openShare,
  type OpenedShare,
  type ShareView,
} from "./services/workspace/shares.ts";
export { savePolicyRules, SavePolicyRulesInput, currentPolicyRules, CurrentPolicyRulesInput, type PolicyRulesView } from "./services/workspace/policy-rules.ts";
export { scopeToWorkspace, SCOPED_FIELDS, type ScopedField } from "./services/workspace/scope.ts";
export { hasAccounts, issueSetupToken, setupTokenValid, consumeSetupToken, issueInvite, IssueInviteInput, readInvite, consumeInvite, UseOneTimeLinkInput, type InviteTerms } from "./services/account/one-time-links.ts";
export { discardAccount, DiscardAccountInput, ACCOUNT_DISCARD_REASONS } from "./services/account/discard-account.ts";
export { MODEL_ROLES, ModelSettingsInput, RoleEndpointInput, AdapterSetting, readModelSettings, modelSettingsNeedCleaning, cleanModelSettings, CleanModelSettingsInput, setModelSettings, SetModelSettingsInput, type ModelRole, type KeySealer, type StoredModelSettings, type StoredRoleEndpoint } from "./services/model-settings/model-settings.ts";
export { EndpointUrl, endpointUrlProblem, storedEndpointUrl, endpointUrl } from "./services/model-settings/endpoint-url.ts";
export { saveSkill, SaveSkillInput, listSkills, ListSkillsInput, updateSkill, UpdateSkillInput, recordSkillUse, RecordSkillUseInput, deleteSkill, SkillRefInput, listSkillVersions, type SkillView, type SkillVersionView } from "./services/skill/skills.ts";
export { changeSkillStatus, ChangeSkillStatusInput, SKILL_CHANGES, type SkillChange } from "./services/skill/change-status.ts";
export { saveShortcuts, SaveShortcutsInput, listShortcuts, ListShortcutsInput, recordShortcutValidation, RecordShortcutValidationInput, type ShortcutView } from "./services/shortcut/shortcuts.ts";
export { addLessons, AddLessonsInput, listLessons, ListLessonsInput, updateLesson, UpdateLessonInput, deleteLesson, LessonRefInput, mergeLessons, MergeLessonsInput, type LessonView, type MergeLessonsResult } from "./services/lesson/lessons.ts";
export { startSuiteRun, StartSuiteRunInput } from "./services/suite/start-suite-run.ts";
export { recordSuiteAttempt, RecordSuiteAttemptInput } from "./services/suite/record-suite-attempt.ts";
export { finishSuiteRun, FinishSuiteRunInput } from "./services/suite/finish-suite-run.ts";
export type { SuiteRunView, SuiteAttemptView } from "./services/suite/suite-run-view.ts";

// projections: read-only
export { board, BoardInput, type Board, type BoardCard, type BoardRun } from "./projections/board.ts";
export { attentionQueue, AttentionQueueInput, type AttentionItem, type AttentionWho, type AttentionTakeover } from "./projections/attention-queue.ts";
export { goalHistory, GoalHistoryInput, type GoalHistoryPage, type EventView } from "./projections/goal-history.ts";
export { gateDetail, GateDetailInput, type GateDetail } from "./projections/gate-detail.ts";
export { type TakeoverView } from "./projections/takeover-view.ts";
export { type GateApprovals, type GateDecisionView } from "./projections/gate-approvals.ts";
export { evidenceList, EvidenceListInput, type EvidenceView } from "./projections/evidence-list.ts";
export { todoList, TodoListInput, type TodoListItem } from "./projections/todo-list.ts";
export { goalDetail, GoalDetailInput } from "./projections/goal-detail.ts";
export { runDetail, RunDetailInput, type RunDetail } from "./projections/run-detail.ts";
export { runReplay, RunReplayInput, runSteps, RunStepsInput, runList, RunListInput, type RunListItem, type RunReplay, type ReplayStep, type ReplayScreen, type ReplayNote, type ReplayModelCall } from "./projections/run-replay.ts";
export { evidenceByKey, EvidenceByKeyInput } from "./projections/evidence-by-key.ts";
export { goalList, GoalListInput, type GoalListItem } from "./projections/goal-list.ts";
export { agentList, AgentListInput, type AgentListItem } from "./projections/agent-list.ts";
export { goalRuns, GoalRunsInput, type GoalRunItem } from "./projections/goal-runs.ts";
export { suiteRunList, SuiteRunListInput, suiteRunDetail, SuiteRunDetailInput, suiteFigures, type SuiteRunListItem, type SuiteRunDetail, type SuiteFigures } from "./projections/suite-runs.ts";
export {
  claimDeliveries,
  createWebhookEndpoint,
  CreateWebhookEndpointInput,
  deleteWebhookEndpoint,
  enqueueNotifications,
  enqueueTestDelivery,
  finishDeliveries,
  type FinishDeliveryInput,
  hasPushSubscription,
  listDeliveries,
  listWebhookEndpoints,
  MAX_DELIVERY_ATTEMPTS,
  NOTIFICATION_KINDS,
  NOTIFIED_OPERATORS,
  pushSubscriptionsByIds,
  removePushSubscription,
  retryDelayMs,
  savePushSubscription,
  SavePushSubscriptionInput,
  WEBHOOK_FORMATS,
  webhookEndpointSecrets,
  WebhookEndpointInput,
  type DeliveryView,
  type NotificationKind,
  type NotificationPayload,
  type WebhookEndpointView,
  type WebhookFormat,
} from "./services/notification/notifications.ts";
export type { NotificationDelivery, WebhookEndpoint, PushSubscription } from "./generated/prisma/client.ts";
