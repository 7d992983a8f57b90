// The web app's environment, read on the server at request time (not inlined at build), so one build serves
// any API address.
import { z } from "zod";

const EnvSchema = z.object({
  NEXT_PUBLIC_API_URL: z
    .string()
    .url("NEXT_PUBLIC_API_URL must be the API's base URL, e.g. http://127.0.0.1:4000")
    .default("http://127.0.0.1:4000")
    .transform((u) => u.replace(/\/+$/, "")),
  /** The demo phone's ADB WebSocket (the virtual phone `npm start` runs), connected with one click on /devices. */
  DEMO_PHONE_URL: z.string().url("DEMO_PHONE_URL must be the demo phone's ws:// URL, e.g. ws://127.0.0.1:15556").optional(),
});

export type WebEnv = z.infer<typeof EnvSchema>;

export function readEnv(): WebEnv {
  const parsed = EnvSchema.safeParse({ NEXT_PUBLIC_API_URL: process.env.NEXT_PUBLIC_API_URL || undefined, DEMO_PHONE_URL: process.env.DEMO_PHONE_URL || undefined });
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  return parsed.data;
}
