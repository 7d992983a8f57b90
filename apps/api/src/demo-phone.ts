// The demo phone `npm start` runs (a virtual phone): like a real phone it asks "Allow USB debugging?" for a
// browser's new ADB key. Its control API, whose token only the API holds (DEMO_PHONE_CONTROL_URL / _TOKEN from
// scripts/start.ts), answers that prompt when a signed-in operator asks from the web app — so connecting the demo
// phone is one click, and the control token never reaches a browser.
//
// The phone is shared by every workspace of the installation, so the API answers only for the key of the tab that
// asks: the tab names its key with a random tag of its own (DEMO_KEY_NAME) and sends that name; only a waiting key
// of exactly that name is allowed. Another workspace's admin, who never saw the tag, cannot allow it.
export interface DemoPhoneControl {
  url: string;
  token: string;
}

export type AllowResult = { allowed: true; keys: number } | { allowed: false; reason: string };

/** A demo key's name: anything, then a space and a tag of at least 128 random bits (22 base64url characters). */
export const DEMO_KEY_NAME = /^\S.{0,150} [A-Za-z0-9_-]{22,100}$/;

/** Taps "Allow" (always allow) on the demo phone's USB debugging prompt for the waiting key named `keyName`. */
export async function allowPendingKeys(control: DemoPhoneControl | null, keyName: string): Promise<AllowResult> {
  if (!control) return { allowed: false, reason: "This installation runs no demo phone with a control API: start PhoneLoop with `npm start`, which runs one." };
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${control.url.replace(/\/+$/, "")}${path}`, { ...init, headers: { authorization: `Bearer ${control.token}`, "content-type": "application/json" }, signal: AbortSignal.timeout(5000) });
  try {
    const auth = (await (await call("/auth")).json()) as { pending?: { fingerprint: string; name: string }[] };
    const mine = (auth.pending ?? []).filter((p) => p.name === keyName);
    if (!mine.length) return { allowed: false, reason: "This browser's key is not waiting for “Allow USB debugging?” on the demo phone: connect again, then allow." };
    for (const p of mine) {
      const r = await call("/auth/accept", { method: "POST", body: JSON.stringify({ fingerprint: p.fingerprint, always: true }) });
      if (!r.ok) return { allowed: false, reason: `The demo phone refused the answer (${r.status}); restart PhoneLoop with \`npm start\`.` };
    }
    return { allowed: true, keys: mine.length };
  } catch (e) {
    return { allowed: false, reason: `The demo phone's control API could not be reached (${(e as Error).name === "TimeoutError" ? "no answer in 5 s" : (e as Error).message}): is \`npm start\` still running?` };
  }
}
