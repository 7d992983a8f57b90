// The CLI's environment, read once and checked: the only place that looks at process.env (the entries pass it in).
import { z } from "zod";

export const DEFAULT_API_URL = "http://127.0.0.1:4000";

const Url = (name: string) => z.url({ error: `${name} must be a URL like ${DEFAULT_API_URL}` });

const EnvSchema = z.object({
  /** The PhoneLoop API every command talks to. */
  PHONELOOP_API_URL: Url("PHONELOOP_API_URL").default(DEFAULT_API_URL),
  /** The agent token the CLI and the headless agent act with (an operator issues it in the web app). Never a flag. */
  PHONELOOP_AGENT_TOKEN: z.string().trim().startsWith("plt_", "PHONELOOP_AGENT_TOKEN must be an agent token (it starts with plt_)").optional(),
  /** A virtual phone's control token, for --phone-control (the phone prints it at start). */
  PHONE_CONTROL_TOKEN: z.string().trim().min(1).optional(),
  /** The agent the `phoneloop todo|quota` commands act as, and the id the headless agent registers under. */
  PHONELOOP_AGENT_ID: z.string().trim().min(1).optional(),
  /** The model endpoint's key (never a flag: flags land in shell history). */
  OPENAI_API_KEY: z.string().trim().min(1).optional(),
  /** An OpenAI-compatible endpoint for every role (default: OpenAI's). */
  OPENAI_BASE_URL: Url("OPENAI_BASE_URL").optional(),
  /** One model call's timeout for every role, ms (a --<role>-timeout-ms flag overrides it). */
  MODEL_TIMEOUT_MS: z.coerce.number({ error: "MODEL_TIMEOUT_MS must be milliseconds, e.g. 60000" }).int().min(1).max(600_000).optional(),
  /** Retries after a 5xx, 429 or timeout for every role (a --<role>-retries flag overrides it). */
  MODEL_RETRIES: z.coerce.number({ error: "MODEL_RETRIES must be a whole number, e.g. 3" }).int().min(0).max(20).optional(),
});
export type Env = z.infer<typeof EnvSchema>;

export class EnvError extends Error {
  override readonly name = "EnvError";
}

/** The environment the CLI uses; an unset or empty variable takes its default. */
export function readEnv(source: Record<string, string | undefined>): Env {
  const set = Object.fromEntries(Object.keys(EnvSchema.shape).flatMap((k) => (source[k] ? [[k, source[k]]] : [])));
  const parsed = EnvSchema.safeParse(set);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  throw new EnvError(`The environment is not usable: ${issues}. Fix or unset the variable and run again.`);
}
