// The reference policy: the demo model and the suite's proof of the harness (see README.md).
export { answerRequest, REFERENCE_POLICY_MODEL, REFERENCE_POLICY_LABEL } from "./policy.ts";
export { referenceCompletion, handleReferencePolicyRequest, startReferencePolicyServer, type ReferencePolicyServer } from "./server.ts";
export { matchTask, packTasks, type MatchedTask } from "./tasks.ts";
export { planFor, PLANNED_TASKS, type PlannedTodo, type Move, type Target } from "./plans.ts";
export { readRequest, parseElementLine, type ReadRequest, type ScreenElement, type CallKind } from "./request.ts";
