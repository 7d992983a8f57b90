// @phoneloop/api/testing: what other packages' tests use to drive the real API — a server on the test database, and
// people and agents through the real auth path.
export { useApiServer, type UsedApiServer } from "./use-api-server.ts";
export { agentTokenHeaders, signUpMember, type SignedUpMember } from "./auth/testing.ts";
export { startRoundRobinProxy, type RoundRobinProxy } from "./proxy-testing.ts";
