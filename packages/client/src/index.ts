// @phoneloop/client, browser-safe: the one tRPC client factory, the ControlPlane over it, the event-stream consumer.
export { createApiClient, authorizedFetch, trimUrl, type ApiClient, type ApiClientInit, type ClientAuth } from "./api-client.ts";
export { createControlPlane, newAgentId, type ControlPlaneOptions } from "./control-plane.ts";
export type { RetryNotice, OutageReport } from "./retry.ts";
export { subscribeEvents, type EventHandlers, type EventSubscription, type StreamedEvent } from "./events.ts";
export { checkApi } from "./health.ts";
export { startDeadline, deadlineFetch, DeadlineExceeded, type Deadline } from "./deadline.ts";
export { uploadBlob, readBlob, type BlobUpload, type BlobRead } from "./blobs.ts";
export { readAllPages, type ApiPage } from "./pages.ts";
export { ControlPlaneError, API_UNREACHABLE, apiUnreachable, toControlPlaneError, codeOf, networkReason } from "./errors.ts";
export { ControlPlaneConflict } from "@phoneloop/agent/ports";
export type { AppRouter, RouterInputs, RouterOutputs } from "@phoneloop/api/contract";
