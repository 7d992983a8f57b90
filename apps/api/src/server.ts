// The API process: parse the environment, migrate the database, serve until SIGINT/SIGTERM, then shut down
// gracefully (api-server.ts close) for at most SHUTDOWN_GRACE_MS, end the pool and exit 0. On an install with no
// account yet it prints the one-time setup link that creates the first admin.
import { applyMigrations, createDb, hasAccounts, issueSetupToken, redact } from "@phoneloop/state";
import { createApiServer } from "./api-server.ts";
import { blobsFromEnv } from "./blob-config.ts";
import { parseEnv } from "./env.ts";
import { API_VERSION } from "./health.ts";
import { createApiLogger } from "./logger.ts";
import { endpointUrlProblem } from "./model-settings.ts";

/** start.ts repeats the line with "/setup?token=" at the end of its output. */
const SETUP_LINK_LABEL = "Create the first admin (one-time setup link):";

const logger = createApiLogger();

async function main(): Promise<void> {
  const env = parseEnv();
  const log = (line: string) => logger.info(line);
  const migrated = await applyMigrations(env.DATABASE_URL);
  if (migrated.applied.length > 0) log(`applied migrations: ${migrated.applied.join(", ")}`);
  const seedUrlProblem = env.MODEL_BASE_URL ? endpointUrlProblem(env.MODEL_BASE_URL) : null;
  if (seedUrlProblem) throw new Error(`MODEL_BASE_URL: ${seedUrlProblem.replace("the API key field", "MODEL_API_KEY")}`);
  const db = createDb(env.DATABASE_URL, { max: env.DATABASE_POOL_MAX });
  const server = await createApiServer({
    db,
    databaseUrl: env.DATABASE_URL,
    port: env.API_PORT,
    host: env.API_HOST,
    webOrigins: env.WEB_ORIGIN,
    allowedHosts: env.API_ALLOWED_HOSTS,
    secretKey: env.PHONELOOP_SECRET_KEY,
    demoPhone: env.DEMO_PHONE_CONTROL_URL && env.DEMO_PHONE_CONTROL_TOKEN ? { url: env.DEMO_PHONE_CONTROL_URL, token: env.DEMO_PHONE_CONTROL_TOKEN } : null,
    modelSeed: env.MODEL_BASE_URL
      ? {
          baseUrl: env.MODEL_BASE_URL,
          apiKey: env.MODEL_API_KEY,
          models: {
            ...(env.MODEL_PLANNER ? { planner: env.MODEL_PLANNER } : {}),
            ...(env.MODEL_EXECUTOR ? { executor: env.MODEL_EXECUTOR } : {}),
            ...(env.MODEL_SUMMARIZER ? { summarizer: env.MODEL_SUMMARIZER } : {}),
          },
          microUsdPerInputToken: env.MODEL_INPUT_MICRO_USD_PER_TOKEN,
          microUsdPerOutputToken: env.MODEL_OUTPUT_MICRO_USD_PER_TOKEN,
          timeoutMs: env.MODEL_TIMEOUT_MS,
        }
      : null,
    logger,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    reaper: { intervalMs: env.REAPER_INTERVAL_MS, agentStaleMs: env.AGENT_STALE_MS },
    lessonMerge: { intervalMs: env.LESSON_MERGE_INTERVAL_MS },
    blobs: await blobsFromEnv(env, db),
    notifications: {
      allowPrivateTargets: env.NOTIFY_ALLOW_PRIVATE_TARGETS,
      pollMs: env.NOTIFY_POLL_MS,
      retryBaseMs: env.NOTIFY_RETRY_BASE_MS,
      timeoutMs: env.NOTIFY_TIMEOUT_MS,
      smtp: env.SMTP_HOST && env.SMTP_FROM ? { host: env.SMTP_HOST, port: env.SMTP_PORT, secure: env.SMTP_SECURE, user: env.SMTP_USER, password: env.SMTP_PASSWORD, from: env.SMTP_FROM } : null,
      vapid: env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY ? { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY, subject: env.VAPID_SUBJECT } : null,
    },
  });
  log(`PhoneLoop API ${API_VERSION} on ${server.url} (tRPC at ${server.url}/trpc, database ${redact(env.DATABASE_URL)})`);
  if (!(await hasAccounts(db))) {
    const token = await issueSetupToken(db);
    // For the person starting the server, not a log line: the link is a secret, so it never enters the log.
    process.stdout.write(`${SETUP_LINK_LABEL} ${env.WEB_ORIGIN[0] ?? "http://127.0.0.1:3000"}/setup?token=${token}\n`);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down (new connections refused, requests in flight get up to ${env.SHUTDOWN_GRACE_MS} ms)`);
    await server.close();
    await db.$disconnect();
    log("shut down: exiting");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((e: unknown) => {
  // A start failure is the configuration's or the database's, never a request's input: its message is the news.
  logger.fatal({ cause: e instanceof Error && e.cause ? String(e.cause) : undefined }, `could not start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
