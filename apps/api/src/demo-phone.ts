// The demo phone `npm start` runs (a virtual phone): like a real phone it asks "Allow USB debugging?" for a
// browser's new ADB key. Its control API, whose token only the API holds (DEMO_PHONE_CONTROL_URL / _TOKEN from
// scripts/start.ts), answers that prompt when a signed-in operator asks from the web app — so connecting the demo
// phone is one click, and the control token never reaches a browser.
export interface DemoPhoneControl {
  url: string;
  token: string;
}

export type AllowResult = { allowed: true; keys: number } | { allowed: false; reason: string };

/** Taps "Allow" (always allow) on the demo phone's USB debugging prompt for the keys waiting on it. */
export async function allowPendingKeys(control: DemoPhoneControl | null): Promise<AllowResult> {
  if (!control) return { allowed: false, reason: "This installation runs no demo phone with a control API: start PhoneLoop with `npm start`, which runs one." };
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${control.url.replace(/\/+$/, "")}${path}`, { ...init, headers: { authorization: `Bearer ${control.token}`, "content-type": "application/json" }, signal: AbortSignal.timeout(5000) });
  try {
    const auth = (await (await call("/auth")).json()) as { pending?: { fingerprint: string }[] };
    const pending = auth.pending ?? [];
    if (!pending.length) return { allowed: false, reason: "Nothing is waiting for “Allow USB debugging?” on the demo phone: connect again, then allow." };
    for (const p of pending) {
      const r = await call("/auth/accept", { method: "POST", body: JSON.stringify({ fingerprint: p.fingerprint, always: true }) });
      if (!r.ok) return { allowed: false, reason: `The demo phone refused the answer (${r.status}); restart PhoneLoop with \`npm start\`.` };
    }
    return { allowed: true, keys: pending.length };
  } catch (e) {
    return { allowed: false, reason: `The demo phone's control API could not be reached (${(e as Error).name === "TimeoutError" ? "no answer in 5 s" : (e as Error).message}): is \`npm start\` still running?` };
  }
}
