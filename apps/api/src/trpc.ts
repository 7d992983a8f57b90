// context → initTRPC → procedures, in that order. The context does not depend on the transport, so the HTTP
// handler, tests and server-side callers build it the same way.
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { isStateError, type Db } from "@phoneloop/state";
import { describeIssues, inputIssues, toTRPCError, type InputIssue } from "./errors.ts";
import { credentialsOf, MEMBER_HEADER } from "./contract.ts";
import type { EventHub } from "./events.ts";

export { AGENT_HEADER, MEMBER_HEADER } from "./contract.ts";

export interface ApiServices {
  db: Db;
  events: EventHub;
}

export function createTRPCContext(opts: { services: ApiServices; headers: Headers }) {
  return {
    db: opts.services.db,
    events: opts.services.events,
    ...credentialsOf(opts.headers),
  };
}
export type Context = ReturnType<typeof createTRPCContext>;

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  isDev: false,
  sse: {
    ping: { enabled: true, intervalMs: 15_000 },
    client: { reconnectAfterInactivityMs: 40_000 },
  },
  errorFormatter({ shape, error }) {
    const state = isStateError(error.cause) ? error.cause : undefined;
    // Input the schema rejected (zod), or input an operator rejected after reading the state (its own message).
    const issues: InputIssue[] | undefined = error.code === "BAD_REQUEST" && !state ? inputIssues(error.cause) : undefined;
    const stateIssues = state?.code === "INVALID_INPUT" ? inputIssues(state.details) : undefined;
    return {
      ...shape,
      message:
        issues ? describeIssues(issues)
        : error.code === "INTERNAL_SERVER_ERROR" ? "The API failed while handling this request; its log has the details."
        : shape.message,
      data: {
        ...shape.data,
        issues: issues ?? stateIssues ?? null,
        stateCode: state?.code ?? null,
        details: state?.details ?? null,
      },
    };
  },
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Operators throw StateError; this turns them into tRPC errors with the right HTTP status. */
const stateErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const mapped = toTRPCError(result.error.cause);
    if (mapped && mapped !== result.error) throw mapped;
  }
  return result;
});

export const publicProcedure = t.procedure.use(stateErrors);

/** For procedures only a team member may call: ctx.member is the calling member's row. */
export const memberProcedure = publicProcedure.use(async ({ ctx, next }) => {
  if (!ctx.memberId) {
    throw new TRPCError({
      code: "UNAUTHORIZED",
      message: `This needs a team member: send the ${MEMBER_HEADER} header with your member id (the CLI's --member-id flag).`,
    });
  }
  const member = await ctx.db.member.findUnique({ where: { id: ctx.memberId } });
  if (!member) {
    throw new TRPCError({ code: "FORBIDDEN", message: `No member has the id "${ctx.memberId}"; check ${MEMBER_HEADER}.` });
  }
  return next({ ctx: { member } });
});

/** Who acts, for the Event row an operator appends: the calling agent or member, else the operator's default. */
export function acting(ctx: Pick<Context, "agentId" | "memberId">): { actor?: string } {
  const actor = ctx.agentId ?? ctx.memberId;
  return actor ? { actor } : {};
}
