// Is the API up and its database usable? Asked once before a long-running client (the headless agent) starts, so
// a wrong URL fails before the phone is touched.
import { HEALTH_PATH, type Health } from "@phoneloop/api/contract";
import { trimUrl } from "./api-client.ts";
import { deadlineFetch } from "./deadline.ts";
import { apiUnreachable, ControlPlaneError, networkReason } from "./errors.ts";

export async function checkApi(apiUrl: string, timeoutMs = 10_000): Promise<Health> {
  const base = trimUrl(apiUrl);
  let res: Response;
  let body: string;
  try {
    // The deadline covers the body too: an API that starts its answer and stalls is as unreachable as a silent one.
    res = await deadlineFetch((input, init) => fetch(input, init), timeoutMs)(`${base}${HEALTH_PATH}`);
    body = await res.text();
  } catch (e) {
    throw apiUnreachable(base, networkReason(e));
  }
  const health = parsed(body);
  if (!res.ok || !health) {
    // The API says what is down and what to do (Health.problems); an older or foreign answer is quoted instead.
    const why = health?.problems?.length ? health.problems.join(" ") : `HTTP ${res.status}${body ? `: ${body.slice(0, 300)}` : ""}. Check its log and its DATABASE_URL.`;
    throw new ControlPlaneError("API_UNHEALTHY", `The PhoneLoop API at ${base} answers but is not healthy: ${why}`);
  }
  return health;
}

function parsed(body: string): Health | null {
  try {
    const h = JSON.parse(body) as Health | null;
    return h && typeof h === "object" && typeof h.ok === "boolean" ? h : null;
  } catch {
    return null;
  }
}
