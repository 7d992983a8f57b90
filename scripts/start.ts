// The product on embedded defaults: Postgres (embedded in .data/postgres unless DATABASE_URL is set), migrations,
// the API, the web app and a virtual phone. Prints the URL; Ctrl-C stops everything.
// Its output holds no secret that outlives its use (start-output.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { setupTokenValid } from "../packages/state/src/services/account/one-time-links.ts";
import { createDb } from "../packages/state/src/db/client.ts";
import { applyMigrations, redact } from "../packages/state/src/db/migrate.ts";
import { startEmbeddedPostgres, type RunningPostgres } from "../packages/state/src/db/embedded-postgres.ts";
import { provisionProductDatabase } from "../packages/state/src/db/provision.ts";
import { readOrCreateSecret, readOrCreateVapidKeys } from "../packages/state/src/db/secret-file.ts";
import { DEFAULT_PORTS } from "../packages/virtual-phone/src/default-ports.ts";
import { demoPhoneArgs } from "./demo-phone.ts";
import { accountsNote, maskControlToken } from "./start-output.ts";
import { ensureWebBuild } from "./web-build.ts";

const root = new URL("..", import.meta.url).pathname;
const apiPort = Number(process.env.API_PORT ?? 4000);
const webPort = Number(process.env.WEB_PORT ?? 3000);
// the phone's ports stay outside 5554-5585, where adb looks for emulators (it would list the phone twice)
const phonePorts = {
  adb: Number(process.env.PHONE_ADB_PORT ?? DEFAULT_PORTS.adb),
  ws: Number(process.env.PHONE_WS_PORT ?? DEFAULT_PORTS.ws),
  control: Number(process.env.PHONE_CONTROL_PORT ?? DEFAULT_PORTS.control),
};
const host = "127.0.0.1";

const dataDir = join(root, ".data");
mkdirSync(dataDir, { recursive: true });
// Signs sessions and encrypts model keys at rest: kept in .data (0600) unless the environment sets one.
const secretKey = process.env.PHONELOOP_SECRET_KEY ?? readOrCreateSecret(join(dataDir, "secret-key"));
// Web Push's VAPID key pair, made at the first start and kept in .data (0600) unless the environment sets one.
const vapid = process.env.VAPID_PUBLIC_KEY && process.env.VAPID_PRIVATE_KEY ? { publicKey: process.env.VAPID_PUBLIC_KEY, privateKey: process.env.VAPID_PRIVATE_KEY } : readOrCreateVapidKeys(join(dataDir, "vapid.json"));

let pg: RunningPostgres | undefined;
let databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.log("Starting embedded Postgres (data in .data/postgres)…");
  pg = await startEmbeddedPostgres({ dataDir: join(dataDir, "postgres"), port: Number(process.env.PG_PORT ?? 0) });
  // The API and the migrations use the product's own role, which owns only the product's database.
  databaseUrl = await provisionProductDatabase({ adminUrl: pg.adminUrl, database: "phoneloop", role: "phoneloop", passwordFile: join(dataDir, "postgres-phoneloop.password") });
}
const migrations = await applyMigrations(databaseUrl);
console.log(`Database ${redact(databaseUrl)}: ${migrations.applied.length} migration(s) applied.`);

// `npm start` serves the web app's production build (built when its sources changed); `npm run dev` the dev server.
const dev = process.argv.includes("--dev");
if (!dev) {
  try {
    ensureWebBuild(root);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    await pg?.stop();
    process.exit(1);
  }
}

const children: ChildProcess[] = [];
let stopping = false;
/** The API prints a one-time setup link while nobody has an account; it is repeated below the URL. */
let setupLink: string | undefined;
function launch(name: string, args: string[], env: Record<string, string>): void {
  // Own process group, so stopping reaches npx's grandchildren (tsx, next) too.
  const child = spawn("npx", args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const prefix = (chunk: Buffer) =>
    maskControlToken(chunk.toString(), phoneControl.token)
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => `[${name}] ${l}`)
      .join("\n");
  child.stdout?.on("data", (c: Buffer) => {
    setupLink ??= /(https?:\/\/\S+\/setup\?token=\S+)/.exec(c.toString())?.[1];
    if (name === "phone") readPhoneControl(c.toString());
    console.log(prefix(c));
  });
  child.stderr?.on("data", (c: Buffer) => console.error(prefix(c)));
  child.on("exit", (code) => {
    if (!stopping) {
      console.error(`[${name}] exited with code ${code}. Stopping PhoneLoop; the lines above say why.`);
      void stop(1);
    }
  });
  children.push(child);
}

// The demo phone starts first: the API answers its "Allow USB debugging?" prompt for the web app's one-click
// connect, with the control API and token the phone prints (the token stays between these processes).
const phoneControl: { url?: string; token?: string } = {};
let phoneControlKnown: () => void = () => undefined;
const phoneControlRead = new Promise<void>((resolve) => (phoneControlKnown = resolve));
function readPhoneControl(text: string): void {
  phoneControl.url ??= /Control API\s+(http:\/\/\S+)/.exec(text)?.[1];
  phoneControl.token ??= /Control token\s+(\S+)/.exec(text)?.[1];
  if (phoneControl.url && phoneControl.token) phoneControlKnown();
}

if (existsSync(join(root, "packages/virtual-phone/src/cli.ts"))) {
  launch("phone", ["tsx", ...demoPhoneArgs({ root, ports: phonePorts, webPort })], {});
  await Promise.race([phoneControlRead, new Promise((r) => setTimeout(r, 30_000))]);
}

const apiUrl = `http://${host}:${apiPort}`;
launch("api", ["tsx", "apps/api/src/server.ts"], {
  ...(phoneControl.url && phoneControl.token ? { DEMO_PHONE_CONTROL_URL: phoneControl.url, DEMO_PHONE_CONTROL_TOKEN: phoneControl.token } : {}),
  DATABASE_URL: databaseUrl,
  API_PORT: String(apiPort),
  API_HOST: host,
  WEB_ORIGIN: `http://${host}:${webPort}`,
  PHONELOOP_SECRET_KEY: secretKey,
  VAPID_PUBLIC_KEY: vapid.publicKey,
  VAPID_PRIVATE_KEY: vapid.privateKey,
});
launch("web", ["next", dev ? "dev" : "start", "apps/web", "-p", String(webPort), "-H", host], {
  NEXT_PUBLIC_API_URL: apiUrl,
  NEXT_TELEMETRY_DISABLED: "1",
  // the demo phone above, one click on /devices or "Try the demo"
  DEMO_PHONE_URL: `ws://${host}:${phonePorts.ws}`,
});

await waitFor(`${apiUrl}/health`, "API");
await waitFor(`http://${host}:${webPort}/`, "web app");
console.log(`\nPhoneLoop is running: http://${host}:${webPort}  (API ${apiUrl}; virtual phone: adb connect ${host}:${phonePorts.adb})\nPress Ctrl-C to stop.`);
console.log(accountsNote({ setupLink, linkOpens: await setupLinkOpens(setupLink), webUrl: `http://${host}:${webPort}` }));

/** Whether the setup link the API printed still opens setup (nobody used it while the web app started). */
async function setupLinkOpens(link: string | undefined): Promise<boolean> {
  const token = link && URL.canParse(link) ? new URL(link).searchParams.get("token") : null;
  if (!token || !databaseUrl) return false;
  const db = createDb(databaseUrl, { max: 1 });
  try {
    return await setupTokenValid(db, token);
  } finally {
    await db.$disconnect();
  }
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const c of children) {
    try {
      if (c.pid) process.kill(-c.pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }
  await pg?.stop();
  process.exit(code);
}
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));

async function waitFor(url: string, what: string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  console.error(`The ${what} did not answer at ${url} within 3 minutes; its log lines above say why.`);
  await stop(1);
}
