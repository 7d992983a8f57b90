// Browser-safe entry of the agent runtime: no Node-only imports here (see "./node" and "./testing").
export * from "./ports.ts";
export { ActionSchema, ACTION_TYPES, ACTION_JSON_SCHEMA, describeAction, type Action, type ActionType, type NormPoint } from "./actions/schema.ts";
export { parseAction, type ParseError, type ParseErrorCode, type ParseResult } from "./actions/parse.ts";
export { normalisePunctuation, extractFenced, extractBalanced, repairJson } from "./actions/repair.ts";
export { detectAnomalies, detectRepetition, detectCycle, detectScreen, detectScrollStreak, sampleOf, DETECTOR_LIMITS, phash, hammingDistance, type Anomaly, type AnomalyKind, type ActionSample } from "./detectors/index.ts";
export { decidePermission, needsGate, recordApproval, AUTO_ALLOW_AFTER, DEFAULT_APP_RULES, HIGH_RISK_WORDS, CONFIRM_WORDS, matchWords, type Tier, type PermissionDecision, type SessionApprovals, type AppRule, type RiskCategory } from "./policy/index.ts";
export { createOpenAIModel, type OpenAIModelInit, type Price } from "./model/openai.ts";
export { countTextTokens, countImageTokens, countRequestTokens, type ImageTokenFormula, type RequestTokens } from "./model/tokens.ts";
export { prepareScreenshot, fitLongSide, type PreparedScreenshot } from "./images/index.ts";
export { browserImages } from "./images/browser.ts";
export { fenceUntrusted, fencedRegions, outsideFences, FENCE_TAG } from "./prompts/fence.ts";
export { readInputs, extractOutputs, type Blackboard, type BlackboardError } from "./memory/blackboard.ts";
export { formatHistory, type StepSummary } from "./memory/history.ts";
export { runAgent, type RunAgentOptions, type RunOutcome } from "./graph/run.ts";
export { routeReturn, nextNode } from "./graph/routes.ts";
export type { RunReport } from "./graph/summarizer.ts";
export { DEFAULT_CONFIG, WorkerKilled, type AgentConfig, type AgentEvent, type RunState, type ExecutorReturn, type ExitReason, type NodeName } from "./graph/state.ts";
export { createModels, type ModelsInit, type RoleModelInit } from "./model/models.ts";
