// The one place routers are merged.
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { eventRouter } from "./routers/event.ts";
import { createTRPCRouter } from "./trpc.ts";

export const appRouter = createTRPCRouter({
  event: eventRouter,
});

export type AppRouter = typeof appRouter;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
