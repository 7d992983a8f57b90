// What every request passes before any route: its Host is one this API answers to (a web page that rebinds its
// own name to 127.0.0.1 sends its own name, so DNS rebinding stops here), a state-changing request from a browser
// comes from an allowed origin (CSRF: a cross-site form post is refused), and CORS names exact origins only.
import type { IncomingMessage, ServerResponse } from "node:http";

/** Host names the API answers to by default: loopback only. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"];

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface HygieneRules {
  /** Host names (no port) the API answers to. */
  allowedHosts: Set<string>;
  /** Browser origins that may call the API (the web app), exactly as the browser sends them. */
  origins: Set<string>;
  allowedHeaders: string;
}

export type Refusal = { status: number; code: string; message: string };

export function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  try {
    return new URL(`http://${header}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Null when the request may go on; else why it may not. */
export function refusal(req: IncomingMessage, rules: HygieneRules): Refusal | null {
  const host = hostOf(req.headers.host);
  if (!host || !rules.allowedHosts.has(host)) {
    return {
      status: 421,
      code: "HOST_NOT_ALLOWED",
      message: `This API does not answer to the host "${req.headers.host ?? ""}". Call it as ${[...rules.allowedHosts].join(" or ")}, or add the name to API_ALLOWED_HOSTS where the API runs.`,
    };
  }
  if (SAFE_METHODS.has(req.method ?? "GET")) return null;
  const origin = req.headers.origin;
  const site = req.headers["sec-fetch-site"];
  const ownOrigin = `http://${req.headers.host}`;
  const foreignOrigin = origin !== undefined && origin !== ownOrigin && !rules.origins.has(origin);
  if (foreignOrigin || (origin === undefined && site === "cross-site")) {
    return {
      status: 403,
      code: "CROSS_SITE_REQUEST",
      message: `A request that changes something must come from the PhoneLoop web app; ${origin ?? "this page"} is not one of its origins (WEB_ORIGIN where the API runs).`,
    };
  }
  return null;
}

/** CORS for an allowed origin only, with credentials (the web app's session cookie). */
export function applyCors(req: IncomingMessage, res: ServerResponse, rules: HygieneRules): void {
  const origin = req.headers.origin;
  res.setHeader("vary", "origin");
  if (!origin || !rules.origins.has(origin)) return;
  res.setHeader("access-control-allow-origin", origin);
  res.setHeader("access-control-allow-credentials", "true");
  res.setHeader("access-control-allow-headers", rules.allowedHeaders);
  res.setHeader("access-control-allow-methods", "GET, POST, OPTIONS");
  res.setHeader("access-control-max-age", "600");
  // The model proxy's usage of a call, so the tab's runner shows the tokens and money its run spent.
  res.setHeader("access-control-expose-headers", "x-phoneloop-input-tokens, x-phoneloop-output-tokens, x-phoneloop-micro-usd");
}
