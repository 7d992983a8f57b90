"use client";
// The web app talks to the API over HTTP: batched queries, and the event stream over SSE.
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import { createContext, useContext, useMemo, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@phoneloop/api";

export function createApiClient(apiUrl: string) {
  const url = `${apiUrl}/trpc`;
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url, transformer: superjson }),
        false: httpBatchLink({ url, transformer: superjson }),
      }),
    ],
  });
}
export type ApiClient = ReturnType<typeof createApiClient>;

interface ApiContextValue {
  apiUrl: string;
  client: ApiClient;
}

const ApiContext = createContext<ApiContextValue | null>(null);

export function ApiProvider({ apiUrl, children }: { apiUrl: string; children: ReactNode }) {
  const value = useMemo(() => ({ apiUrl, client: createApiClient(apiUrl) }), [apiUrl]);
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

export function describeProblem(e: unknown): LoadProblem {
  if (e instanceof TRPCClientError) {
    const data = e.data as { code?: string; httpStatus?: number } | undefined;
    if (!data?.code) return { kind: "unreachable", message: e.message };
    if (data.code === "NOT_FOUND") return { kind: "not_found", message: e.message };
    return { kind: "refused", message: e.message };
  }
  return { kind: "unreachable", message: e instanceof Error ? e.message : String(e) };
}
