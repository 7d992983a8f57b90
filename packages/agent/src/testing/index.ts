// Test helpers, for this package's tests and other packages' (Node only: uses node:http and @napi-rs/canvas).
export { startScriptedModelServer, act, type ScriptedModelServer, type ScriptedModelServerInit, type ScriptedReply, type ScriptEntry, type ScriptRule, type RecordedRequest } from "./scripted-model-server.ts";
export { MemoryControlPlane, type MemoryControlPlaneInit, type GateRecord, type GateAnswer, type QuotaLimit, type RunRecord } from "./memory-control-plane.ts";
export { describeControlPlaneContract, type ContractSubject } from "./control-plane-contract.ts";
export { FakePhone, FakeDisconnect, box, type FakeElement, type FakeScreen, type FakeCommand } from "./fake-phone.ts";
export { FakeClock } from "./fake-clock.ts";
export { startHarness, planOf, type Harness, type HarnessInit } from "./harness.ts";
export { SINGLE_APP_TASKS, SUBPATH_TASKS, packExecutor, packWork, unlearned, type PackStep, type PackWork } from "./pack-work.ts";
export { lampScenario, lampExecutor, replyAction, screenOf, elementOn, offeredLampSkill, type LampVariant } from "./lamp.ts";
export { checkFixture, fixtureAdapter, type AdapterFixture, type FixtureFile, type FixtureOutcome } from "../model/adapters/fixture-check.ts";
