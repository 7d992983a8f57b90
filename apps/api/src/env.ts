// The API's environment, parsed once at start: a bad value stops the process with a message, not the first request.
import { z } from "zod";

const EnvSchema = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is not set. Point it at Postgres, e.g. postgresql://user:pass@127.0.0.1:5432/phoneloop" })
    .url("DATABASE_URL must be a postgresql:// URL"),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  API_HOST: z.string().min(1).default("127.0.0.1"),
  /**
   * Connections this process's write pool opens at most (each API process has its own): size K processes so that
   * K × (DATABASE_POOL_MAX + 10) stays under the database's max_connections (docs/deploy.md).
   */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1, "DATABASE_POOL_MAX must be at least 1").max(1_000).default(20),
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish before the process exits anyway. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  /**
   * Events older than this many days are pruned by the collector (the event stream's resume window); the core's
   * state and evidence stay. A stream resumed from a pruned cursor is told to reload.
   */
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1, "EVENT_RETENTION_DAYS must be at least 1").max(100_000).default(30),
  /** Host names the API answers to besides loopback, comma-separated (e.g. the name a reverse proxy uses). */
  API_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((s) => s.split(",").map((h) => h.trim()).filter(Boolean)),
  /** Origins allowed to call the API from a browser, comma-separated; the first is where setup links point. */
  WEB_ORIGIN: z
    .string()
    .default("http://127.0.0.1:3000,http://localhost:3000")
    .transform((s) => s.split(",").map((o) => o.trim()).filter(Boolean)),
  /** Signs sessions and encrypts model keys at rest; `npm start` keeps one in .data/secret-key. */
  PHONELOOP_SECRET_KEY: z
    .string({ error: "PHONELOOP_SECRET_KEY is not set. `npm start` generates one in .data/secret-key; elsewhere set 32+ random characters (openssl rand -base64 32)." })
    .min(32, "PHONELOOP_SECRET_KEY must have at least 32 characters (openssl rand -base64 32)."),
  /** The model settings the setup link's workspace starts with; admins change them in the web app later. */
  MODEL_BASE_URL: z.string().url("MODEL_BASE_URL must be an http(s) URL, e.g. https://api.example.com/v1").optional(),
  MODEL_API_KEY: z.string().default(""),
  MODEL_PLANNER: z.string().min(1).optional(),
  MODEL_EXECUTOR: z.string().min(1).optional(),
  MODEL_SUMMARIZER: z.string().min(1).optional(),
  MODEL_INPUT_MICRO_USD_PER_TOKEN: z.coerce.number().min(0).default(0),
  MODEL_OUTPUT_MICRO_USD_PER_TOKEN: z.coerce.number().min(0).default(0),
  MODEL_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  /** The demo phone's control API and its token (`npm start` passes the virtual phone's), to answer its USB debugging prompt. */
  DEMO_PHONE_CONTROL_URL: z.string().url("DEMO_PHONE_CONTROL_URL must be the demo phone's control API, e.g. http://127.0.0.1:15557").optional(),
  DEMO_PHONE_CONTROL_TOKEN: z.string().min(22, "DEMO_PHONE_CONTROL_TOKEN must be the demo phone's control token (printed at its start)").optional(),
  /** How often the reaper interrupts runs whose worker died and expires overdue gates. */
  REAPER_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  /** How often the API merges each app's new lessons (duplicates folded, contradictions resolved). */
  LESSON_MERGE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** A worker silent this long (no heartbeat) and holding no lease is gone: its running runs become interrupted. */
  AGENT_STALE_MS: z.coerce.number().int().min(1_000).max(7 * 24 * 3_600_000).default(240_000),
  /** Where blobs' bytes live: "postgres" (this database, the default) or "s3" (any S3-compatible object storage). */
  BLOB_STORE: z.enum(["postgres", "s3"], { error: 'BLOB_STORE must be "postgres" or "s3"' }).default("postgres"),
  /** An S3-compatible server's URL (MinIO, R2, …); unset for AWS S3 itself. */
  S3_ENDPOINT: z.string().url("S3_ENDPOINT must be an http(s) URL, e.g. http://127.0.0.1:9000").optional(),
  S3_BUCKET: z.string().min(3, "S3_BUCKET must name an existing bucket").optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Bucket in the URL's path, not its host name: most self-hosted servers (MinIO) need "true". */
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"], { error: 'S3_FORCE_PATH_STYLE must be "true" or "false"' }).default("false").transform((v) => v === "true"),
  /** "true": a read of a blob redirects to a presigned URL of the bucket (valid 15 minutes) instead of streaming through the API. */
  S3_PRESIGNED_READS: z.enum(["true", "false"], { error: 'S3_PRESIGNED_READS must be "true" or "false"' }).default("false").transform((v) => v === "true"),
  /** Screenshots of runs that ended more than this many days ago are deleted (their evidence stays); unset keeps them forever. */
  BLOB_RETENTION_DAYS: z.coerce.number().int().min(1, "BLOB_RETENTION_DAYS must be at least 1 (unset keeps screenshots forever)").max(100_000).optional(),
  /** How often the blob collector runs. */
  BLOB_GC_INTERVAL_MS: z.coerce.number().int().min(1_000).max(7 * 24 * 3_600_000).default(600_000),
  /** A blob no evidence or step shows is kept this long after its last upload (an upload precedes the evidence that shows it). */
  BLOB_GC_GRACE_MS: z.coerce.number().int().min(60_000).max(30 * 24 * 3_600_000).default(3_600_000),
  /** Notifications: send webhooks and Web Push to loopback and private addresses too ("true": tests, a closed network). */
  NOTIFY_ALLOW_PRIVATE_TARGETS: z.enum(["true", "false"], { error: 'NOTIFY_ALLOW_PRIVATE_TARGETS must be "true" or "false"' }).default("false").transform((v) => v === "true"),
  /** How often the notification dispatcher looks for due deliveries (it is also woken by each gate's Event). */
  NOTIFY_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
  /** The first retry's wait after a failed delivery; each next one doubles (8 attempts in all). */
  NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  /** How long one webhook, push or e-mail send may take. */
  NOTIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** E-mail through SMTP (all unset: no e-mail). */
  SMTP_HOST: z.string().min(1).optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  /** "true": TLS from the first byte (port 465); else STARTTLS when the server offers it. */
  SMTP_SECURE: z.enum(["true", "false"], { error: 'SMTP_SECURE must be "true" or "false"' }).default("false").transform((v) => v === "true"),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_FROM: z.string().min(3).optional(),
  /** Web Push's VAPID key pair (`npm start` makes it in .data/vapid.json); only the public key reaches a browser. */
  VAPID_PUBLIC_KEY: z.string().min(20).optional(),
  VAPID_PRIVATE_KEY: z.string().min(20).optional(),
  /** VAPID's contact for the push services: mailto: or https:. */
  VAPID_SUBJECT: z.string().regex(/^(mailto:|https:)/, "VAPID_SUBJECT must start with mailto: or https:").default("mailto:admin@phoneloop.invalid"),
}).superRefine((env, ctx) => {
  if (env.SMTP_HOST && !env.SMTP_FROM) {
    ctx.addIssue({ code: "custom", path: ["SMTP_FROM"], message: "SMTP_HOST needs SMTP_FROM, the address e-mails are sent from (e.g. PhoneLoop <phoneloop@example.com>)." });
  }
  if (Boolean(env.VAPID_PUBLIC_KEY) !== Boolean(env.VAPID_PRIVATE_KEY)) {
    ctx.addIssue({ code: "custom", path: [env.VAPID_PUBLIC_KEY ? "VAPID_PRIVATE_KEY" : "VAPID_PUBLIC_KEY"], message: "Set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY together (npx web-push generate-vapid-keys), or neither for no Web Push." });
  }
  if (env.BLOB_STORE === "s3" && !env.S3_BUCKET) {
    ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "BLOB_STORE=s3 needs S3_BUCKET (and S3_ENDPOINT unless it is AWS S3)." });
  }
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    ctx.addIssue({ code: "custom", path: [env.S3_ACCESS_KEY_ID ? "S3_SECRET_ACCESS_KEY" : "S3_ACCESS_KEY_ID"], message: "Set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together (or neither, to use the AWS default credentials)." });
  }
});

export type Env = z.infer<typeof EnvSchema>;

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new Error(`The API's environment is invalid:\n${lines.join("\n")}`);
  }
  return parsed.data;
}
