// @phoneloop/api: the router and its types for clients, and the server factory for the start script and tests.
export { appRouter, type AppRouter, type RouterInputs, type RouterOutputs } from "./root.ts";
export { createApiServer, TRPC_PATH, type ApiServer, type ApiServerInit } from "./api-server.ts";
export type { Principal } from "./auth/principal.ts";
export type { StreamedEvent } from "./events.ts";
export type { Health } from "./health.ts";
