// Is the API up and its database usable? Asked once before a long-running client (the headless agent) starts, so
// a wrong URL fails before the phone is touched.
import { HEALTH_PATH, type Health } from "@phoneloop/api/contract";
import { trimUrl } from "./api-client.ts";
import { deadlineFetch } from "./deadline.ts";
import { apiUnreachable, ControlPlaneError, networkReason } from "./errors.ts";

export async function checkApi(apiUrl: string, timeoutMs = 10_000): Promise<Health> {
  const base = trimUrl(apiUrl);
  let res: Response;
  try {
    res = await deadlineFetch((input, init) => fetch(input, init), timeoutMs)(`${base}${HEALTH_PATH}`);
  } catch (e) {
    throw apiUnreachable(base, networkReason(e));
  }
  const body = await res.text().catch(() => "");
  if (!res.ok) {
    throw new ControlPlaneError(
      "API_UNHEALTHY",
      `The PhoneLoop API at ${base} answers but is not healthy (HTTP ${res.status}${body ? `: ${body.slice(0, 300)}` : ""}). Check its log and its DATABASE_URL.`,
    );
  }
  return JSON.parse(body) as Health;
}
