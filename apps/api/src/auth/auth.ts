// Accounts through better-auth: e-mail + password (its scrypt hashing), sessions in httpOnly cookies, the login
// rate limit kept in Postgres. It reads and writes its own tables (migration 20261130210000_accounts) through a
// node-postgres pool; sign-up is not exposed over HTTP — people arrive through the setup link or an invite.
import { betterAuth } from "better-auth";
import pg from "pg";
import type { SessionReader } from "./session-reader.ts";
import { deriveKey } from "./secret-key.ts";

import { AUTH_PATH } from "../contract.ts";

export const AUTH_BASE_PATH = AUTH_PATH;
/** Wrong passwords allowed per client address and minute before sign-in answers 429. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;
export const MIN_PASSWORD_LENGTH = 10;

export interface AuthInit {
  databaseUrl: string;
  /** The API's own origin, e.g. http://127.0.0.1:4000. */
  baseURL: string;
  /** Browser origins whose requests better-auth accepts (the web app's). */
  trustedOrigins: string[];
  /** PHONELOOP_SECRET_KEY: signs session cookies (through a derived key). */
  secretKey: string;
}

export function createAuth(init: AuthInit) {
  const pool = new pg.Pool({ connectionString: init.databaseUrl, max: 5 });
  // An idle connection the server closed (restart, admin command) is replaced on next use; unhandled it would end the API.
  pool.on("error", () => undefined);
  const auth = betterAuth({
    appName: "PhoneLoop",
    database: pool,
    baseURL: init.baseURL,
    basePath: AUTH_BASE_PATH,
    secret: deriveKey(init.secretKey, "sessions").toString("base64url"),
    trustedOrigins: init.trustedOrigins,
    telemetry: { enabled: false },
    logger: { level: "error" },
    emailAndPassword: { enabled: true, minPasswordLength: MIN_PASSWORD_LENGTH, maxPasswordLength: 200, autoSignIn: true },
    session: { expiresIn: 60 * 60 * 24 * 14, updateAge: 60 * 60 * 24 },
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 300,
      customRules: { "/sign-in/email": { window: 60, max: SIGN_IN_ATTEMPTS_PER_MINUTE } },
    },
    advanced: {
      // The API is reached directly, not through a proxy: the HTTP server writes the socket's address here.
      ipAddress: { ipAddressHeaders: ["x-phoneloop-client-ip"] },
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
    },
  });
  return { auth, close: () => pool.end() };
}

export type Auth = ReturnType<typeof createAuth>["auth"];

/** The session reader resolvePrincipal uses. */
export function sessionReader(auth: Auth): SessionReader {
  return {
    async sessionOf(headers) {
      const session = await auth.api.getSession({ headers });
      return session ? { user: { id: session.user.id, name: session.user.name, email: session.user.email } } : null;
    },
  };
}
