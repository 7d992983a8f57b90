// The state core a suite writes to, when no running PhoneLoop is named: Postgres (embedded in .data/postgres like
// `npm start`, or DATABASE_URL's), migrated, and the API in its own process on a free loopback port. The suite acts
// in the database's workspace with an agent token issued for this suite run (revoked when it ends), and a member of
// that workspace who may answer gates answers the ones its attempts open — the person's part of an unattended suite.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  applyMigrations,
  createDb,
  issueAgentToken,
  provisionProductDatabase,
  readOrCreateSecret,
  resolveGate,
  revokeAgentToken,
  startEmbeddedPostgres,
  type Db,
  type RunningPostgres,
} from "@phoneloop/state";
import type { GateAnswerer } from "./attempt.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const API_SERVER = join(ROOT, "apps/api/src/server.ts");

export interface SuiteStack {
  apiUrl: string;
  agentToken: string;
  workspace: { id: string; name: string };
  answerGate: GateAnswerer;
  stop(): Promise<void>;
}

export interface SuiteStackInit {
  /** Postgres to use (migrations are applied); default: the embedded server in <dataDir>/postgres. */
  databaseUrl?: string;
  /** Default <repo>/.data, as `npm start`. */
  dataDir?: string;
  /** A workspace's id or name, when the database has more than one. */
  workspace?: string;
  /** Signs the API's sessions; default PHONELOOP_SECRET_KEY's, else <dataDir>/secret-key (as `npm start`). */
  secretKey?: string;
  log?: (line: string) => void;
}

export class StackError extends Error {
  readonly code = "SUITE_STACK";
}

export async function startSuiteStack(init: SuiteStackInit = {}): Promise<SuiteStack> {
  const dataDir = init.dataDir ?? join(ROOT, ".data");
  let pg: RunningPostgres | undefined;
  let databaseUrl = init.databaseUrl;
  if (!databaseUrl) {
    mkdirSync(dataDir, { recursive: true });
    init.log?.(`Starting embedded Postgres (data in ${join(dataDir, "postgres")})…`);
    try {
      pg = await startEmbeddedPostgres({ dataDir: join(dataDir, "postgres"), port: 0 });
    } catch (e) {
      throw new StackError(
        `the embedded Postgres in ${join(dataDir, "postgres")} did not start (${(e as Error).message}). If PhoneLoop is running (npm start), run the suite against it instead: ` +
          "PHONELOOP_AGENT_TOKEN=plt_… npm run suite -- --api-url http://127.0.0.1:4000 … (an agent token from the web app's team page).",
      );
    }
    databaseUrl = await provisionProductDatabase({ adminUrl: pg.adminUrl, database: "phoneloop", role: "phoneloop", passwordFile: join(dataDir, "postgres-phoneloop.password") });
  }
  const db = createDb(databaseUrl, { max: 2 });
  let api: ChildProcess | undefined;
  let tokenId: string | undefined;
  let workspace: { id: string; name: string } | undefined;
  const stop = async () => {
    if (tokenId && workspace) await revokeAgentToken(db, { workspaceId: workspace.id, tokenId }).catch(() => undefined);
    if (api && api.exitCode === null) {
      const exited = new Promise((r) => api!.once("exit", r));
      api.kill("SIGTERM");
      await exited;
    }
    await db.$disconnect();
    await pg?.stop();
  };
  try {
    await applyMigrations(databaseUrl);
    workspace = await pickWorkspace(db, init.workspace);
    const admin = await db.membership.findFirst({ where: { workspaceId: workspace.id, role: { in: ["admin", "approver"] } }, orderBy: { createdAt: "asc" } });
    if (!admin) throw new StackError(`workspace "${workspace.name}" has no admin or approver to answer the gates its attempts open.`);
    const issued = await issueAgentToken(db, { workspaceId: workspace.id, issuedBy: admin.userId, name: `suite runner ${new Date().toISOString().slice(0, 16)}` });
    tokenId = issued.tokenId;
    const secretKey = init.secretKey ?? readOrCreateSecret(join(dataDir, "secret-key"));
    const started = await startApi(databaseUrl, secretKey);
    api = started.proc;
    const approver = admin.userId;
    // An approval (options approve / deny) is approved; anything else is a question the agent asked its user,
    // answered with its first option (or a go-ahead when it offered none).
    const answerGate: GateAnswerer = async ({ gateId }) => {
      const gate = await db.gate.findUnique({ where: { id: gateId }, select: { options: true } });
      if (!gate) return { question: false };
      const question = !(gate.options.includes("approve") && gate.options.includes("deny"));
      if (question) await resolveGate(db, { gateId, userId: approver, decision: "answer", answer: gate.options[0] ?? "Yes, go ahead as the goal says.", rationale: "the task suite answers for the person who set the task" });
      else await resolveGate(db, { gateId, userId: approver, decision: "approve", rationale: "the task suite approves what the task asks for" });
      return { question };
    };
    return { apiUrl: started.url, agentToken: issued.token, workspace, answerGate, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function pickWorkspace(db: Db, wanted?: string): Promise<{ id: string; name: string }> {
  const all = await db.workspace.findMany({ select: { id: true, name: true }, orderBy: { createdAt: "asc" } });
  if (wanted) {
    const hit = all.find((w) => w.id === wanted) ?? all.filter((w) => w.name === wanted)[0];
    if (!hit) throw new StackError(`no workspace "${wanted}"; the workspaces are: ${all.map((w) => `${w.name} (${w.id})`).join(", ") || "none"}`);
    return hit;
  }
  if (all.length === 1) return all[0]!;
  if (!all.length) throw new StackError("the database has no workspace yet: run `npm start`, open the one-time setup link it prints to create your team, stop it, and run the suite again.");
  throw new StackError(`the database has ${all.length} workspaces; name one with --workspace: ${all.map((w) => `${w.name} (${w.id})`).join(", ")}`);
}

function startApi(databaseUrl: string, secretKey: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ["--import", "tsx", API_SERVER], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, API_PORT: "0", API_HOST: "127.0.0.1", PHONELOOP_SECRET_KEY: secretKey },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        proc.stdout!.off("data", onData);
        proc.stdout!.resume();
        proc.stderr!.resume();
        resolve({ proc, url: m[1]! });
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    proc.once("exit", (code) => reject(new StackError(`the API exited (code ${code}) before it listened: ${out.slice(-800)}`)));
  });
}
