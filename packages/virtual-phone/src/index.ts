// @phoneloop/virtual-phone: a simulated Android phone that speaks the real ADB protocol.
export { startVirtualPhone, deviceBanner, DEVICE_FEATURES, type VirtualPhone, type VirtualPhoneOptions } from "./phone.ts";
export { PhoneEngine, InjectedFault, TaskNotFoundError, DEFAULT_SCENARIO, DEFAULT_DEVICE, type PhoneEngineInit, type Faults } from "./engine.ts";
export { Scenario, App, Screen, Element, Popup, Task, Evaluator, Predicate, Action, Operand } from "./scenario/schema.ts";
export { parseScenario, loadScenario, builtinScenarios, ScenarioValidationError, type ScenarioIssue } from "./scenario/load.ts";
export { perturbScenario, parsePerturbations, PERTURBATIONS, PERTURBATION_DESCRIPTIONS, PerturbationError, type Perturbation } from "./scenario/perturb.ts";
export { scenarioJsonSchema } from "./scenario/json-schema.ts";
export { evaluateTask, taskGoal, taskParams, TaskVariantError, type TaskEvaluation } from "./scenario/evaluator.ts";
export { ScenarioRuntime, seededRandom, matchDeeplink, ADB_KEYBOARD_IME, DEFAULT_IME, type Clock, type PhoneState } from "./scenario/runtime.ts";
export { AdbKeyStore, parseAdbPublicKey, parseAdbKeys, ADB_TRUST, type AdbTrust } from "./adb/auth.ts";
export { AdbMessageParser, AdbCommand, encodeMessage } from "./adb/message.ts";
export { Latency, LATENCY_PROFILES, type LatencyProfile } from "./latency.ts";
export { ManualClock, parseDump, find, has, center, tapOn, type DumpNode } from "./testing.ts";
export { knownTarget, type KnownTarget } from "./known-target.ts";
