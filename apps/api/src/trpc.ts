// context → initTRPC → procedures, in that order. The context does not depend on the transport: the HTTP handler
// resolves the caller (resolvePrincipal) and tests build it with a principal directly.
//
// One authorization point: every procedure is made with `procedure(input)`; who may call it is its row in the one
// permissions table (permissions.ts), which the middleware here reads by the procedure's path: 401 to an anonymous
// caller, 403 to one whose role (or agent token) lacks it, 404 when the input names a row of another workspace.
// Handlers never re-check, and never read who acts from input.
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import type { z } from "zod";
import { isStateError, scopeToWorkspace, validatedBy, type Db } from "@phoneloop/state";
import { describeIssues, inputIssues, toTRPCError, type InputIssue } from "./errors.ts";
import type { EventHub } from "./events.ts";
import { itemwiseInputTransformer, refuseUnstorableInput, type RequestBudget } from "./input-guard.ts";
import type { Principal } from "./auth/principal.ts";
import { refusal, SIGN_IN } from "./permissions.ts";
import { inCallersTurn } from "./fair-share.ts";
import { newSecret } from "./auth/secret-key.ts";
import { modelSettingsStore, type ModelSettingsStore } from "./model-settings.ts";
import type { DemoPhoneControl } from "./demo-phone.ts";
import type { NotificationServices } from "./routers/notification.ts";

export interface ApiServices {
  db: Db;
  events: EventHub;
  /** Model settings, encrypted with PHONELOOP_SECRET_KEY; without one, a key for this process only (tests). */
  modelSettings?: ModelSettingsStore;
  /** The demo phone's control API (npm start's virtual phone), when this installation runs one. */
  demoPhone?: DemoPhoneControl | null;
  /** Notifications: how webhook secrets are sealed, which targets are allowed, Web Push's public key. */
  notifications?: NotificationServices;
}

const PROCESS_SECRET = newSecret();

/** `budget`: the HTTP request's budget of items (input-guard.ts); a caller made in-process has none. */
export function createTRPCContext(opts: { services: ApiServices; principal: Principal; budget?: RequestBudget }) {
  const modelSettings = opts.services.modelSettings ?? modelSettingsStore(opts.services.db, PROCESS_SECRET);
  const notifications = opts.services.notifications ?? { secretKey: PROCESS_SECRET, allowPrivateTargets: false, vapidPublicKey: null, emailEnabled: false };
  return { db: opts.services.db, events: opts.services.events, modelSettings, demoPhone: opts.services.demoPhone ?? null, notifications, principal: opts.principal, budget: opts.budget ?? null };
}
export type Context = ReturnType<typeof createTRPCContext>;

const t = initTRPC
  .context<Context>()
  .create({
    // superjson both ways; inputs decoded item by item, so one undecodable batch item fails alone.
    transformer: { input: itemwiseInputTransformer, output: superjson },
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

type Caller = Exclude<Principal, { kind: "anonymous" }>;

/** 401 / 403 before the input is even read: the permissions table's row for this procedure, against who calls now. */
const permitted = t.middleware(({ ctx, path, next }) => {
  const refused = refusal(ctx.principal, path);
  if (refused) throw new TRPCError(refused);
  const p = ctx.principal;
  return next({ ctx: { caller: (p.kind === "anonymous" ? null : p) as Caller | null } });
});

/** Fields that name the agent acting: an agent token acts only as the agent it registered. */
const ACTING_AGENT_FIELDS = ["agentId"] as const;

/** 404 for rows of another workspace, and an agent only acting as itself — on the parsed input. */
const scoped = t.middleware(async ({ ctx, input, next }) => {
  const caller = (ctx as { caller?: Caller | null }).caller;
  if (caller && caller.kind !== "share") {
    await scopeToWorkspace(ctx.db, caller.workspaceId, input);
    if (caller.kind === "agent" && input && typeof input === "object") {
      for (const field of ACTING_AGENT_FIELDS) {
        const named = (input as Record<string, unknown>)[field];
        if (named === undefined) continue;
        if (caller.agentId === null) {
          throw new TRPCError({ code: "FORBIDDEN", message: "This agent token has not registered an agent yet: call agent.register first." });
        }
        if (named !== caller.agentId) {
          throw new TRPCError({ code: "FORBIDDEN", message: `This agent token acts as agent ${caller.agentId}, not ${String(named)}; send that agent's own token.` });
        }
      }
    }
  }
  return next();
});

/** The caller as the handlers see it: the workspace they act in, and the actor every Event records. */
function acting(caller: Caller | null): { workspaceId: string; actor: string } {
  if (!caller) throw new TRPCError({ code: "UNAUTHORIZED", message: SIGN_IN });
  switch (caller.kind) {
    case "member":
      return { workspaceId: caller.workspaceId, actor: caller.userId };
    case "agent":
      return { workspaceId: caller.workspaceId, actor: caller.agentId ?? `token:${caller.tokenId}` };
    case "share":
      return { workspaceId: caller.workspaceId, actor: `share:${caller.shareId}` };
  }
}

/** 400 for input no column can hold (NUL, lone surrogates, BigInt, …), whatever the procedure's schema. */
const storable = t.middleware(async ({ ctx, getRawInput, next }) => {
  await refuseUnstorableInput(getRawInput, ctx.budget);
  return next();
});

/** Each caller runs a few calls at once (fair-share.ts), so one caller's batches cannot hold the API for others. */
const inTurn = t.middleware(({ ctx, next }) => inCallersTurn(ctx.principal, () => next()));

const base = t.procedure.use(inTurn).use(stateErrors).use(storable);

/**
 * The only way to make a procedure: its input. Who may call it is its row in the permissions table
 * (permissions.ts), read here by path. The handler's ctx carries `caller` (the principal), `workspaceId` and
 * `actor` (for OperatorContext) — never anything from the request body.
 */
export function procedure<S extends z.ZodType>(input: S) {
  return base
    .use(permitted)
    // validatedBy: the operator the handler calls with this input and the same schema takes it as validated here.
    .input(validatedBy(input))
    .use(scoped)
    .use(({ ctx, next }) => {
      const { workspaceId, actor } = acting(ctx.caller);
      return next({ ctx: { caller: ctx.caller!, workspaceId, actor } });
    });
}

/** For the few procedures whose row is "anyone": a share link's token is their input, a signed-out person calls them. */
export function anyoneProcedure<S extends z.ZodType>(input: S) {
  return base.use(permitted).input(input);
}
