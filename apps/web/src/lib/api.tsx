"use client";
// The web app talks to the API through packages/client: batched queries, and the event stream over SSE.
import { API_UNREACHABLE, codeOf, createApiClient, toControlPlaneError, type ApiClient } from "@phoneloop/client";
import { createContext, useContext, useMemo, type ReactNode } from "react";

export type { ApiClient } from "@phoneloop/client";

interface ApiContextValue {
  apiUrl: string;
  client: ApiClient;
}

const ApiContext = createContext<ApiContextValue | null>(null);

export function ApiProvider({ apiUrl, children }: { apiUrl: string; children: ReactNode }) {
  const value = useMemo(() => ({ apiUrl, client: createApiClient({ apiUrl, auth: { kind: "cookie" } }) }), [apiUrl]);
  return <ApiContext.Provider value={value}>{children}</ApiContext.Provider>;
}

export function useApi(): ApiContextValue {
  const value = useContext(ApiContext);
  if (!value) throw new Error("useApi outside <ApiProvider>");
  return value;
}

/** What went wrong, in words a user can act on. */
export interface LoadProblem {
  kind: "unreachable" | "not_found" | "refused";
  message: string;
}

export function describeProblem(e: unknown, apiUrl: string): LoadProblem {
  const error = toControlPlaneError(e, apiUrl);
  const code = codeOf(error);
  if (code === API_UNREACHABLE || code === undefined) return { kind: "unreachable", message: error.message };
  if (code === "NOT_FOUND") return { kind: "not_found", message: error.message };
  return { kind: "refused", message: error.message };
}
