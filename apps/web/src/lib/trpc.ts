// tRPC bound to TanStack Query: `useTRPC()` gives typed query and mutation options for every procedure.
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@phoneloop/client";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();
