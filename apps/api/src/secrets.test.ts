// No configured secret ever leaves the API in an error body, and none is baked into the web app's bundle.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueAgentToken, registerAgent, startRun } from "@phoneloop/state";
import { rid, seedGoal, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";

const MODEL_KEY = "sk-leakcheck-5d0b1e7f2a9c";
const SECRET_KEY = "secret-leakcheck-8c2f0e44b19d73a6d0";
const root = fileURLToPath(new URL("../../../", import.meta.url));

const t = useTestDatabase();
const api = useApiServer(t, { secretKey: SECRET_KEY });
let echoing: Server;
let echoUrl: string;

beforeAll(async () => {
  // An endpoint that, like real ones, repeats the key it was sent in its error, with a link carrying a query.
  echoing = createServer((req, res) => {
    res.writeHead(401, { "content-type": "application/json" }).end(
      JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization?.slice(7)}. See https://models.example/keys?key=${MODEL_KEY}` } }),
    );
  });
  await new Promise<void>((ok) => echoing.listen(0, "127.0.0.1", ok));
  echoUrl = `http://127.0.0.1:${(echoing.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((ok) => echoing.close(ok));
});

function assertClean(what: string, body: string): void {
  for (const secret of [MODEL_KEY, SECRET_KEY, new URL(t.url).password]) {
    expect(body.includes(secret), `${what} leaks a configured secret: ${body}`).toBe(false);
  }
}

describe("API error bodies", () => {
  it("carry no configured key, whatever fails", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const { token, tokenId } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "tab", issuedBy: admin.id });
    const agent = await registerAgent(t.db, { id: rid("agent"), name: "tab", kind: "browser", workspaceId: workspace.id, tokenId });
    const goal = await seedGoal(t.db, { workspaceId: workspace.id });
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const agentHeaders = { authorization: `Bearer ${token}`, "x-phoneloop-run": run.id, "content-type": "application/json" };
    const chat = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });
    const model = (headers: Record<string, string>, body = chat, role = "executor") => fetch(`${api.url}/model/${role}/v1/chat/completions`, { method: "POST", headers, body });

    const answers: [string, Response][] = [];
    const settings = (baseUrl: string) => api.modelSettings.set(workspace.id, { baseUrl, apiKey: MODEL_KEY, models: { executor: "m1" } }, admin.id);
    await settings(echoUrl);
    answers.push(["upstream error echoing the key", await model(agentHeaders)]);
    answers.push(["unknown model", await model(agentHeaders, JSON.stringify({ model: "other", messages: [] }))]);
    answers.push(["role without a model", await model(agentHeaders, chat, "planner")]);
    answers.push(["anonymous model call", await model({})]);
    answers.push(["not JSON", await model(agentHeaders, "{oops")]);
    // A URL carrying the key is refused when saved, and the refusal does not repeat the key.
    const refused = await settings(`http://127.0.0.1:9/v1?key=${MODEL_KEY}`).then(() => null, (e: Error) => e);
    expect(refused, "a base URL with the key in its query is refused").toBeInstanceOf(Error);
    expect(`${refused!.message} ${JSON.stringify(refused)}`).not.toContain(MODEL_KEY);
    await settings("http://127.0.0.1:9/v1");
    answers.push(["unreachable upstream", await model(agentHeaders)]);
    answers.push(["anonymous tRPC", await fetch(`${api.url}/trpc/modelSettings.get?input=${encodeURIComponent('{"json":{}}')}`)]);
    answers.push(["agent on an admin procedure", await fetch(`${api.url}/trpc/agentToken.listAll?input=${encodeURIComponent('{"json":{}}')}`, { headers: agentHeaders })]);
    answers.push(["bad tRPC input", await fetch(`${api.url}/trpc/goal.create`, { method: "POST", headers: agentHeaders, body: '{"json":{"title":5}}' })]);
    answers.push(["no route", await fetch(`${api.url}/nowhere`)]);
    answers.push(["sign-in", await fetch(`${api.url}/api/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/json", origin: "http://127.0.0.1:3000" }, body: '{"email":"x@example.test","password":"wrong password"}' })]);
    answers.push(["cross-site post", await fetch(`${api.url}/trpc/goal.create`, { method: "POST", headers: { origin: "http://evil.example" }, body: "{}" })]);
    for (const [what, r] of answers) {
      expect(r.status, what).toBeGreaterThanOrEqual(400);
      assertClean(what, await r.text());
    }
  });
});

describe("the web app's production bundle", () => {
  it("contains no configured key (next build with keys in its environment)", { timeout: 300_000 }, async () => {
    const distDir = ".next-keycheck";
    const out = join(root, "apps/web", distDir);
    // Only the compiler's cache stays from an earlier check (it makes the next build faster).
    for (const name of existsSync(out) ? readdirSync(out) : []) if (name !== "cache") rmSync(join(out, name), { recursive: true, force: true });
    const env = { ...process.env, PHONELOOP_WEB_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: "1", MODEL_API_KEY: MODEL_KEY, OPENAI_API_KEY: MODEL_KEY, PHONELOOP_SECRET_KEY: SECRET_KEY };
    const code = await new Promise<number>((resolve) => {
      const child = spawn("npx", ["next", "build", "apps/web"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
      let log = "";
      child.stdout.on("data", (c: Buffer) => (log += c.toString()));
      child.stderr.on("data", (c: Buffer) => (log += c.toString()));
      child.once("exit", (c) => {
        if (c !== 0) console.error(log);
        resolve(c ?? -1);
      });
    });
    try {
      expect(code).toBe(0);
      const files = listFiles(out);
      expect(files.some((f) => f.includes("/static/"))).toBe(true);
      for (const file of files) assertCleanFile(file);
    } finally {
      for (const name of existsSync(out) ? readdirSync(out) : []) if (name !== "cache") rmSync(join(out, name), { recursive: true, force: true });
    }
  });
});

function assertCleanFile(file: string): void {
  const text = readFileSync(file).toString("latin1");
  for (const secret of [MODEL_KEY, SECRET_KEY]) expect(text.includes(secret), `${file} contains a configured key`).toBe(false);
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // The build's cache holds compiler state, not what is served.
    if (name === "cache") return [];
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}
