"use client";
// The web app's data layer: TanStack Query holds what the API answered, tRPC types it, and the event stream
// keeps it fresh (see live-cache.ts). Pages read through `useTRPC()` + useQuery and never poll.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { Toaster } from "sonner";
import { useApi } from "./api.tsx";
import { LiveCacheProvider } from "./live-cache.tsx";
import { SessionProvider } from "./session.tsx";
import { TRPCProvider } from "./trpc.ts";

export function DataProvider({ children }: { children: ReactNode }) {
  const { client } = useApi();
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // The event stream says when data changed; a refetch on focus or a timer would only repeat it.
          queries: { staleTime: Infinity, refetchOnWindowFocus: false, retry: 1 },
        },
      }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={client} queryClient={queryClient}>
        <SessionProvider>
          <LiveCacheProvider>{children}</LiveCacheProvider>
        </SessionProvider>
        <Toaster position="bottom-right" closeButton />
      </TRPCProvider>
    </QueryClientProvider>
  );
}
