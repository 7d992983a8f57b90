// A model endpoint is stored as origin + path: a credential in its URL is refused on save (naming the key field),
// a row saved before that is cleaned on its first read (its one secret becomes the encrypted key), reads show
// origin + path only, and the calls built on a base URL are the URL API's — over HTTP, as people and tabs call.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { createApiClient } from "@phoneloop/client";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { agentTokenHeaders, signUpMember, type SignedUpMember } from "./auth/testing.ts";

const SECRET = "sk-in-the-url-5f0c2a91";
const t = useTestDatabase();
const api = useApiServer(t);
let admin: SignedUpMember;
let viewer: SignedUpMember;

/** An OpenAI-compatible endpoint that records the path and query each call reached, and its Authorization. */
let endpoint: Server;
let endpointUrl: string;
const reached: { url: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  endpoint = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      reached.push({ url: req.url ?? "", authorization: req.headers.authorization });
      if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/v1/chat/completions") return void res.writeHead(404).end("{}");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "c", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "OK" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1 } }));
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`;
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  viewer = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: admin.workspaceId });
});
afterAll(async () => {
  await new Promise((resolve) => endpoint.close(resolve));
});

const as = (m: SignedUpMember) => createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: m.headers.cookie! } });
const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(TRPCClientError);
  return { status: (e as { data?: { httpStatus?: number } }).data?.httpStatus, message: (e as Error).message };
};

describe("model endpoint URLs", () => {
  it("refuses a URL with user:password@ or a credential in its query, saying the key goes in the encrypted key field; stores origin + path", async () => {
    const save = (baseUrl: string) => as(admin).modelSettings.set.mutate({ baseUrl, models: { planner: "m" } });
    for (const url of [`https://user:${SECRET}@api.example.com/v1`, `https://api.example.com/v1?api-key=${SECRET}`, `https://api.example.com/v1?key=${SECRET}`, `https://api.example.com/v1?access_token=${SECRET}`]) {
      const r = await refusal(save(url));
      expect(r.status).toBe(400);
      expect(r.message).toMatch(/API key field.*encrypted/);
      expect(r.message).not.toContain(SECRET);
    }
    const roleUrl = await refusal(as(admin).modelSettings.set.mutate({ baseUrl: endpointUrl, models: {}, roles: { executor: { baseUrl: `https://api.example.com/v1?token=${SECRET}` } } }));
    expect(roleUrl.status).toBe(400);
    expect((await refusal(save("https://api.example.com/v1?api-version=2024-10-21"))).message).toMatch(/origin and a path.*without a query/);
    expect((await as(admin).modelSettings.set.mutate({ baseUrl: "https://api.example.com/v1/", models: {} })).baseUrl).toBe("https://api.example.com/v1");
  });

  it("cleans a row saved with a credential in its URL on its first read: reads show origin + path, the secret becomes the encrypted key, calls reach /v1/chat/completions", async () => {
    const { workspaceId } = admin;
    // A row as the API saved it before endpoints were origin + path.
    const roles = JSON.stringify({ executor: { baseUrl: `http://u:${SECRET}-exec@127.0.0.1:9/v1` } });
    await t.db.$executeRaw`
      INSERT INTO "ModelSettings" ("workspaceId", "baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "roles", "updatedBy", "updatedAt")
      VALUES (${workspaceId}, ${`${endpointUrl}?api-key=${SECRET}`}, '', ${JSON.stringify({ planner: "m" })}::jsonb, 0, 0, 120000, ${roles}::jsonb, ${admin.userId}, now())
      ON CONFLICT ("workspaceId") DO UPDATE SET "baseUrl" = EXCLUDED."baseUrl", "apiKeyEncrypted" = '', "models" = EXCLUDED."models", "roles" = EXCLUDED."roles"`;

    // What a viewer and an agent token read: origin + path, the keys only as set.
    const agent = await agentTokenHeaders(t.db, { workspaceId, issuedBy: admin.userId });
    for (const reader of [as(viewer), createApiClient({ apiUrl: api.url, auth: { kind: "token", token: agent.token } })]) {
      const view = await reader.modelSettings.get.query({});
      expect(JSON.stringify(view)).not.toContain(SECRET);
      expect(view).toMatchObject({ baseUrl: endpointUrl, hasApiKey: true, roles: { executor: { baseUrl: "http://127.0.0.1:9/v1", hasApiKey: true } } });
    }
    // The row itself no longer holds the secret in a URL.
    const [row] = await t.db.$queryRaw<{ baseUrl: string; roles: unknown }[]>`SELECT "baseUrl", "roles" FROM "ModelSettings" WHERE "workspaceId" = ${workspaceId}`;
    expect(JSON.stringify(row)).not.toContain(SECRET);

    // The shared endpoint's call goes to its path, with the moved secret as its key.
    reached.length = 0;
    const r = await as(admin).modelSettings.test.mutate({});
    expect(r.roles.find((x) => x.role === "planner")).toMatchObject({ ok: true });
    expect(reached.map((x) => x.url)).toContain("/v1/chat/completions");
    expect(reached.every((x) => x.url === "/v1/chat/completions" && x.authorization === `Bearer ${SECRET}`)).toBe(true);
  });
});
