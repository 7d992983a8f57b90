import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { issueInvite, issueSetupToken } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "../use-api-server.ts";
import { SIGN_IN_ATTEMPTS_PER_MINUTE } from "./auth.ts";
import { signUpMember } from "./testing.ts";

const WEB = "http://127.0.0.1:3000";
const t = useTestDatabase();
const api = useApiServer(t, { webOrigins: [WEB] });

interface Answer {
  status: number;
  body: { error?: { code?: string; message?: string }; [k: string]: unknown };
  cookies: string[];
}

/** A raw HTTP request (fetch cannot set Host), JSON in and out. */
function call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {}): Promise<Answer> {
  const url = new URL(path, api.url);
  const payload = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: { ...(payload ? { "content-type": "application/json" } : {}), origin: WEB, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: Answer["body"] = {};
          try {
            body = JSON.parse(text) as Answer["body"];
          } catch {
            body = { text };
          }
          const set = res.headers["set-cookie"] ?? [];
          resolve({ status: res.statusCode ?? 0, body, cookies: set.map((c) => c.split(";")[0]!) });
        });
      },
    );
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}

const password = "correct horse battery";

describe("setup link", () => {
  it("creates the first admin and workspace once, signed in; the link then stops working", async () => {
    const token = await issueSetupToken(t.db);
    const person = { token, name: "Ada", email: "ada@example.test", password, workspaceName: "Ada's team" };
    const made = await call("POST", "/api/account/setup", { body: person });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ role: "admin" });
    expect(made.cookies.length).toBeGreaterThan(0);
    const me = await call("GET", "/api/account/me", { headers: { cookie: made.cookies.join("; ") } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ kind: "member", role: "admin", name: "Ada", email: "ada@example.test", workspaceName: "Ada's team" });
    const again = await call("POST", "/api/account/setup", { body: { ...person, email: "eve@example.test" } });
    expect(again.status).toBe(404);
    expect(again.body.error?.code).toBe("SETUP_LINK_INVALID");
  });

  it("refuses a guessed token and a short password with what to do", async () => {
    expect((await call("POST", "/api/account/setup", { body: { token: "guess", name: "E", email: "e@example.test", password } })).status).toBe(404);
    const token = await issueSetupToken(t.db);
    const short = await call("POST", "/api/account/setup", { body: { token, name: "E", email: "e2@example.test", password: "short" } });
    expect(short.status).toBe(400);
    expect(short.body.error?.message).toMatch(/at least 10 characters/);
  });
});

describe("invite links", () => {
  it("make the invited person a member with the invite's role, once", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const { token } = await issueInvite(t.db, { workspaceId: admin.workspaceId, role: "approver", invitedBy: admin.userId });
    const joined = await call("POST", "/api/account/invite", { body: { token, name: "Grace", email: "grace@example.test", password } });
    expect(joined.status).toBe(201);
    const me = await call("GET", "/api/account/me", { headers: { cookie: joined.cookies.join("; ") } });
    expect(me.body).toMatchObject({ kind: "member", role: "approver", workspaceId: admin.workspaceId });
    const reused = await call("POST", "/api/account/invite", { body: { token, name: "Mallory", email: "mallory@example.test", password } });
    expect(reused.status).toBe(404);
  });
});

describe("admin procedures of accounts", () => {
  const trpc = (path: string, headers: Record<string, string>, input: unknown) =>
    call("POST", `/trpc/${path}`, { body: { json: input }, headers });

  it("an admin makes an invite link through tRPC; an operator may not", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const made = await trpc("invite.create", admin.headers, { role: "operator" });
    expect(made.status).toBe(200);
    const path = ((made.body.result as { data: { json: { path: string } } }).data.json).path;
    const token = new URL(path, WEB).searchParams.get("token")!;
    const joined = await call("POST", "/api/account/invite", { body: { token, name: "Op", email: "op@example.test", password } });
    expect(joined.body).toMatchObject({ workspaceId: admin.workspaceId, role: "operator" });
    const operator = await trpc("invite.create", { cookie: joined.cookies.join("; ") }, { role: "admin" });
    expect(operator.status).toBe(403);
  });

  it("model settings keep the key encrypted at rest and never answer it", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const key = "sk-test-never-shown-71be";
    const set = await trpc("modelSettings.set", admin.headers, { baseUrl: "https://models.example.test/v1", apiKey: key, models: { executor: "vision-1" } });
    expect(set.status).toBe(200);
    expect(JSON.stringify(set.body)).not.toContain(key);
    const got = await call("GET", `/trpc/modelSettings.get?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers: admin.headers });
    expect(JSON.stringify(got.body)).not.toContain(key);
    expect(got.body.result).toMatchObject({ data: { json: { hasApiKey: true, models: { executor: "vision-1" } } } });
    const stored = await t.db.$queryRaw<{ apiKeyEncrypted: string }[]>`SELECT "apiKeyEncrypted" FROM "ModelSettings" WHERE "workspaceId" = ${admin.workspaceId}`;
    expect(stored[0]!.apiKeyEncrypted).not.toContain(key);
    expect((await api.modelSettings.upstream(admin.workspaceId))?.apiKey).toBe(key);
  });
});

describe("sign-in", () => {
  it("gives the same answer for an unknown e-mail and a wrong password, and signs in with the right one", async () => {
    const m = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer" });
    const headers = { "x-forwarded-for": "10.1.1.1" };
    const unknown = await call("POST", "/api/auth/sign-in/email", { body: { email: "nobody@example.test", password }, headers });
    const wrong = await call("POST", "/api/auth/sign-in/email", { body: { email: m.email, password: "wrong password!" }, headers });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(unknown.status);
    expect(wrong.body).toEqual(unknown.body);
    const right = await call("POST", "/api/auth/sign-in/email", { body: { email: m.email, password: m.password } });
    expect(right.status).toBe(200);
    const me = await call("GET", "/api/account/me", { headers: { cookie: right.cookies.join("; ") } });
    expect(me.body).toMatchObject({ userId: m.userId, role: "viewer" });
  });

  it("is rate-limited per client address, whatever address header the client sends", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE + 2; i++) {
      // A forged address header on each try must not give a fresh allowance.
      const r = await call("POST", "/api/auth/sign-in/email", { body: { email: "target@example.test", password: `guess ${i} guess` }, headers: { "x-forwarded-for": `10.0.0.${i}`, "x-phoneloop-client-ip": `10.9.9.${i}` } });
      statuses.push(r.status);
    }
    expect(statuses.slice(-1)).toEqual([429]);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(SIGN_IN_ATTEMPTS_PER_MINUTE);
  });

  it("does not open sign-up over HTTP: accounts come from the setup link or an invite", async () => {
    const r = await call("POST", "/api/auth/sign-up/email", { body: { name: "X", email: "x@example.test", password } });
    expect(r.status).toBe(404);
    expect(r.body.error?.message).toMatch(/setup link or an invite/);
  });

  it("answers 401 with what to do when nobody is signed in", async () => {
    const r = await call("GET", "/api/account/me");
    expect(r.status).toBe(401);
    expect(r.body.error?.message).toMatch(/sign in/i);
  });
});

describe("HTTP hygiene", () => {
  it("refuses a foreign Host header (DNS rebinding) with a message", async () => {
    const r = await call("GET", "/health", { headers: { host: `evil.example:${api.port}` } });
    expect(r.status).toBe(421);
    expect(r.body.error?.message).toMatch(/API_ALLOWED_HOSTS/);
    expect((await call("GET", "/health", { headers: { host: `localhost:${api.port}` } })).status).toBe(200);
  });

  it("refuses a cross-site form post to a mutation, even carrying a session cookie", async () => {
    const m = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const form = await call("POST", "/trpc/goal.create", {
      raw: "title=x&objective=y",
      headers: { origin: "http://127.0.0.1:8080", "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-site", ...m.headers },
    });
    expect(form.status).toBe(403);
    expect(form.body.error?.code).toBe("CROSS_SITE_REQUEST");
    const noOrigin = await call("POST", "/api/auth/sign-out", { headers: { origin: "", "sec-fetch-site": "cross-site", ...m.headers } });
    expect(noOrigin.status).toBe(403);
  });

  it("sends CORS only to the web app's exact origin, with credentials", async () => {
    const ok = await fetch(`${api.url}/health`, { headers: { origin: WEB } });
    expect(ok.headers.get("access-control-allow-origin")).toBe(WEB);
    expect(ok.headers.get("access-control-allow-credentials")).toBe("true");
    const other = await fetch(`${api.url}/health`, { headers: { origin: "http://127.0.0.1:3001" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
