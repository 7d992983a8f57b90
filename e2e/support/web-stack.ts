// The product for web specs: a real Postgres, the API in this process, the web app's production build served by
// `next start` (built only when its sources changed, as `npm start` does), people signed up through the real auth
// path and put into a browser context by their session cookie, and an agent token for what agents do.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, type BrowserContext, type Page, type TestInfo } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { createApiServer, type ApiServer, type ApiServerInit } from "@phoneloop/api";
import { createApiClient } from "@phoneloop/client";
import { applyMigrations, createDb, startEmbeddedPostgres, type Db, type RunningPostgres, type Role } from "@phoneloop/state";
import { agentTokenHeaders, signUpMember, type SignedUpMember } from "../../apps/api/src/auth/testing.ts";
import { ensureWebBuild } from "../../scripts/web-build.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const nextBin = join(root, "node_modules/.bin/next");

export interface WebStack {
  db: Db;
  api: ApiServer;
  webUrl: string;
  /** The workspace everyone in this stack belongs to, made by its admin. */
  workspaceId: string;
  admin: SignedUpMember;
  /** A signed-up member of the workspace with `role`, signed in to `context` (their session cookie). */
  signIn(context: BrowserContext, role: Role, name: string): Promise<SignedUpMember>;
  /** An API client acting as an agent of the workspace (its token). */
  agentClient(name: string): Promise<ReturnType<typeof createApiClient>>;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * `webPort`: serve the web app there (e.g. a port a phone already lets in); `webEnv`: more environment for `next
 * start` (e.g. DEMO_PHONE_URL); `demoPhone`: the demo phone's control API, so the API answers its USB debugging
 * prompt (as under `npm start`).
 */
export async function startWebStack(name: string, opts: { webPort?: number; webEnv?: Record<string, string>; demoPhone?: { url: string; token: string }; notifications?: ApiServerInit["notifications"] } = {}): Promise<WebStack> {
  const pg: RunningPostgres = await startEmbeddedPostgres({ dataDir: join(mkdtempSync(join(tmpdir(), `phoneloop-e2e-${name}-`)), "data"), ephemeral: true, fast: true });
  const url = pg.urlFor(`phoneloop_${name.replace(/\W/g, "_")}`);
  await applyMigrations(url);
  const db = createDb(url);
  const webPort = opts.webPort ?? (await freePort());
  const webUrl = `http://127.0.0.1:${webPort}`;
  const api = await createApiServer({ db, databaseUrl: url, port: 0, host: "127.0.0.1", webOrigins: [webUrl], ...(opts.demoPhone ? { demoPhone: opts.demoPhone } : {}), ...(opts.notifications ? { notifications: opts.notifications } : {}) });

  ensureWebBuild(root, () => {});
  const web: ChildProcess = spawn(nextBin, ["start", "-p", String(webPort), "-H", "127.0.0.1"], {
    cwd: join(root, "apps/web"),
    env: { ...process.env, NEXT_PUBLIC_API_URL: api.url, NEXT_TELEMETRY_DISABLED: "1", ...opts.webEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let webLog = "";
  web.stdout?.on("data", (c: Buffer) => (webLog += c.toString()));
  web.stderr?.on("data", (c: Buffer) => (webLog += c.toString()));
  for (let i = 0; ; i++) {
    const status = await fetch(`${webUrl}/sign-in`).then((r) => r.status, () => 0);
    if (status === 200) break;
    if (web.exitCode !== null || i > 600) throw new Error(`next start did not come up:\n${webLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const services = { db, auth: api.auth };
  const admin = await signUpMember(services, { role: "admin", name: "Ada Admin" });
  return {
    db,
    api,
    webUrl,
    workspaceId: admin.workspaceId,
    admin,
    async signIn(context, role, personName) {
      const member = await signUpMember(services, { role, workspaceId: admin.workspaceId, name: personName });
      await context.addCookies(
        member.headers.cookie!.split("; ").map((pair) => {
          const at = pair.indexOf("=");
          return { name: pair.slice(0, at), value: pair.slice(at + 1), domain: "127.0.0.1", path: "/", httpOnly: true, sameSite: "Lax" as const };
        }),
      );
      return member;
    },
    async agentClient(agentName) {
      const { token } = await agentTokenHeaders(db, { workspaceId: admin.workspaceId, issuedBy: admin.userId, name: agentName });
      return createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    },
    async close() {
      if (web.exitCode === null) {
        const exited = new Promise((r) => web.once("exit", r));
        web.kill("SIGTERM");
        await exited;
      }
      await api.close();
      await db.$disconnect();
      await pg.stop();
    },
  };
}

/** No serious or critical accessibility violation on the page as it is now; the full report is attached. */
export async function expectAccessible(page: Page, testInfo: TestInfo, label: string): Promise<void> {
  // Toasts fade in and out; the page is judged once they are gone (a fading one has no stable contrast).
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 15_000 });
  const result = await new AxeBuilder({ page }).analyze();
  const report = testInfo.outputPath(`axe-${label}.json`);
  writeFileSync(report, JSON.stringify(result.violations, null, 2));
  await testInfo.attach(`axe-${label}`, { path: report, contentType: "application/json" });
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (bad.length > 0) {
    throw new Error(`${label}: ${bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`).join("\n")}`);
  }
}

/** The page's screenshot as a test artifact (a file in the test's output folder, attached to the report). */
export async function attachScreenshot(page: Page, testInfo: TestInfo, label: string): Promise<void> {
  const path = testInfo.outputPath(`${label}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(label, { path, contentType: "image/png" });
}
