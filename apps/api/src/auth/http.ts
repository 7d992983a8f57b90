// The account routes the web app calls: better-auth's sign-in, sign-out and session (only those: sign-up is not
// open), plus setup (the first admin and workspace, from the one-time link) and invite acceptance, which create
// the account through better-auth and the membership through the state core.
import type { IncomingMessage, ServerResponse } from "node:http";
import { toNodeHandler } from "better-auth/node";
import { APIError } from "better-auth/api";
import { z } from "zod";
import { addMember, consumeInvite, consumeSetupToken, createWorkspace, discardAccount, isStateError, readInvite, setupTokenValid, type Db } from "@phoneloop/state";
import { ACCOUNT_PATH } from "../contract.ts";
import { AUTH_BASE_PATH, MIN_PASSWORD_LENGTH, type Auth } from "./auth.ts";
import type { ModelSettingsInput, ModelSettingsStore } from "../model-settings.ts";
import { resolvePrincipal, type PrincipalServices } from "./principal.ts";

export { ACCOUNT_PATH } from "../contract.ts";
/** The header better-auth reads the client's address from (for the login rate limit); set from the socket only. */
export const CLIENT_IP_HEADER = "x-phoneloop-client-ip";

const OPEN_AUTH_ROUTES = new Set(["POST /sign-in/email", "POST /sign-out", "GET /get-session"]);

const Person = z.object({
  name: z.string().trim().min(1, "Enter your name.").max(200),
  email: z.string().trim().toLowerCase().email("Enter an e-mail address, e.g. ada@example.com."),
  password: z.string().min(MIN_PASSWORD_LENGTH, `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`).max(200),
});
const SetupBody = Person.extend({ token: z.string().min(1), workspaceName: z.string().trim().min(1).max(200).default("My team") });
const InviteBody = z.object({ token: z.string().min(1) }).and(Person.partial());

export interface AccountRoutes {
  /** True when it answered the request. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean;
}

export interface AccountExtras {
  /** Model settings a workspace made by the setup link starts with (the API's MODEL_* environment). */
  modelSeed: ModelSettingsInput | null;
  modelSettings: ModelSettingsStore;
}

export function accountRoutes(services: PrincipalServices & { db: Db }, auth: Auth, extras: AccountExtras, logFailure: (req: IncomingMessage, e: unknown) => void): AccountRoutes {
  const betterAuth = toNodeHandler(auth);
  const fail = (req: IncomingMessage, res: ServerResponse, e: unknown) => {
    if (e instanceof HttpFailure) return sendJson(res, e.status, { error: { code: e.code, message: e.message } });
    if (e instanceof APIError) return sendJson(res, e.statusCode, { error: { code: e.body?.code ?? "AUTH_FAILED", message: e.body?.message ?? e.message } });
    logFailure(req, e);
    sendJson(res, 500, { error: { code: "INTERNAL", message: "The API failed while handling this request; its log has the details." } });
  };

  async function signUp(name: string, email: string, password: string) {
    try {
      const { headers, response } = await auth.api.signUpEmail({ body: { name, email, password }, returnHeaders: true });
      return { userId: response.user.id, cookies: headers.getSetCookie() };
    } catch (e) {
      if (e instanceof APIError && e.body?.code === "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL") {
        throw new HttpFailure(409, "ACCOUNT_EXISTS", "An account with this e-mail exists already: sign in with it, then open the link again.");
      }
      throw e;
    }
  }

  /** An account made for a link that cannot be used after all goes again, so its e-mail address stays free. */
  async function discard(userId: string, reason: "link_used" | "not_joined") {
    await discardAccount(services.db, { userId, reason });
  }

  async function setup(req: IncomingMessage, res: ServerResponse) {
    const body = parse(SetupBody, await readJson(req));
    if (!(await setupTokenValid(services.db, body.token))) {
      throw new HttpFailure(404, "SETUP_LINK_INVALID", "This setup link was used or has expired. Restart `npm start` for a new one, or sign in.");
    }
    const { userId, cookies } = await signUp(body.name, body.email, body.password);
    if (!(await consumeSetupToken(services.db, { token: body.token, userId }))) {
      await discard(userId, "link_used");
      throw new HttpFailure(404, "SETUP_LINK_INVALID", "This setup link was used meanwhile. Sign in instead.");
    }
    const { workspace } = await createWorkspace(services.db, { name: body.workspaceName, adminUserId: userId }).catch(async (e: unknown) => {
      await discard(userId, "not_joined");
      throw e;
    });
    if (extras.modelSeed) await extras.modelSettings.set(workspace.id, extras.modelSeed, userId);
    res.setHeader("set-cookie", cookies);
    sendJson(res, 201, { userId, workspaceId: workspace.id, role: "admin" });
  }

  async function acceptInvite(req: IncomingMessage, res: ServerResponse, headers: Headers) {
    const body = parse(InviteBody, await readJson(req));
    const terms = await readInvite(services.db, body.token);
    if (!terms) throw new HttpFailure(404, "INVITE_INVALID", "This invite was used or has expired. Ask an admin of the workspace for a new one.");
    const principal = await resolvePrincipal(services, headers);
    let userId: string;
    let cookies: string[] = [];
    let created = false;
    if (principal.kind === "member") {
      userId = principal.userId; // a signed-in person joins another workspace with the account they have
    } else {
      const person = parse(Person, body);
      ({ userId, cookies } = await signUp(person.name, person.email, person.password));
      created = true;
    }
    const used = await consumeInvite(services.db, { token: body.token, userId });
    if (!used) {
      if (created) await discard(userId, "link_used");
      throw new HttpFailure(404, "INVITE_INVALID", "This invite was used meanwhile. Ask an admin of the workspace for a new one.");
    }
    try {
      await addMember(services.db, { workspaceId: used.workspaceId, userId, role: used.role }, { actor: used.invitedBy });
    } catch (e) {
      if (created) await discard(userId, "not_joined");
      if (isStateError(e) && e.code === "CONFLICT") throw new HttpFailure(409, "ALREADY_MEMBER", e.message);
      throw e;
    }
    if (cookies.length > 0) res.setHeader("set-cookie", cookies);
    sendJson(res, 201, { userId, workspaceId: used.workspaceId, role: used.role });
  }

  async function me(res: ServerResponse, headers: Headers) {
    const principal = await resolvePrincipal(services, headers);
    if (principal.kind !== "member") {
      throw new HttpFailure(401, "UNAUTHORIZED", "You are not signed in: sign in, or open your invite or setup link.");
    }
    const workspace = await services.db.workspace.findUnique({ where: { id: principal.workspaceId }, select: { name: true } });
    sendJson(res, 200, { ...principal, workspaceName: workspace?.name ?? "" });
  }

  return {
    handle(req, res, path) {
      // Only the socket's address counts for the login rate limit, never a header the client sent.
      delete req.headers[CLIENT_IP_HEADER];
      if (req.socket.remoteAddress) req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress;
      if (path.startsWith(`${AUTH_BASE_PATH}/`)) {
        const route = `${req.method ?? "GET"} ${path.slice(AUTH_BASE_PATH.length)}`;
        if (!OPEN_AUTH_ROUTES.has(route)) {
          sendJson(res, 404, { error: { code: "NOT_FOUND", message: `No route ${route}. Accounts are created from the setup link or an invite.` } });
          return true;
        }
        void betterAuth(req, res).catch((e: unknown) => fail(req, res, e));
        return true;
      }
      if (!path.startsWith(`${ACCOUNT_PATH}/`)) return false;
      const headers = toHeaders(req);
      const route = `${req.method ?? "GET"} ${path.slice(ACCOUNT_PATH.length)}`;
      const run =
        route === "POST /setup" ? setup(req, res)
        : route === "POST /invite" ? acceptInvite(req, res, headers)
        : route === "GET /me" ? me(res, headers)
        : Promise.reject(new HttpFailure(404, "NOT_FOUND", `No route ${route}; ${ACCOUNT_PATH} serves POST /setup, POST /invite and GET /me.`));
      run.catch((e: unknown) => fail(req, res, e));
      return true;
    },
  };
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpFailure(400, "INVALID_INPUT", parsed.error.issues.map((i) => i.message).join(" "));
  return parsed.data;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new HttpFailure(413, "TOO_LARGE", "The request body is larger than 64 KiB.");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    throw new HttpFailure(400, "INVALID_INPUT", "The request body is not JSON; send application/json.");
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}
