export { createTestDatabase, testServerAdminUrl, withDatabase, TEMPLATE_DATABASE, type TestDatabase } from "./test-database.ts";
export { useTestDatabase, type UsedTestDatabase } from "./use-test-database.ts";
export { rid, seedUser, seedWorkspace, seedWorkspaceId, seedGoal, seedTodos, seedAgent, seedMember, seedGate, seedClaimed } from "./factories.ts";
export { manualClock, type ManualClock } from "../domain/clock.ts";
