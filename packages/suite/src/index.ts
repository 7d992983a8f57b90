// @phoneloop/suite: runs the virtual phone's tasks as a suite (`npm run suite`), each attempt a real run of the agent
// on its own phone, recorded in the state core with its score.
export { runSuite, type SuiteInit, type SuiteOutcome } from "./runner.ts";
export { runAttempt, type AttemptResult, type AttemptInit, type AttemptSubject, type GateAnswerer } from "./attempt.ts";
export { startSuiteStack, type SuiteStack, type SuiteStackInit } from "./stack.ts";
export { loadModelProfile, profileOf, ModelProfileSchema, ProfileError, type ModelProfile } from "./profile.ts";
export { selectTasks, availableTasks, availableApps, PACK_SCENARIO, type SuiteTask } from "./tasks.ts";
export { summarize, summaryLine, formatTable, formatTaskSuccess, settingsLine, type SuiteSummary } from "./report.ts";
export { suiteSettingsOf, recordedEndpoint } from "./settings.ts";
export { parseSuiteArgs, SUITE_USAGE, REFERENCE_POLICY_PROFILE, type SuiteArgs } from "./options.ts";
export { main } from "./main.ts";
export { validateSkills, validationGoal, skillValidationLine, skillValidationSummary, type SkillValidation, type ValidateSkillsInit } from "./validate-skills.ts";
