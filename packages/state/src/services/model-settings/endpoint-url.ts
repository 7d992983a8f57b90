// What a model endpoint's URL may be: an origin and a path. A credential in a URL (`user:password@`, `?api-key=…`)
// would be shown to everyone who reads the settings, so it is refused, naming the encrypted key field; any other
// query or fragment is refused too (an OpenAI-compatible base URL has none, and the paths built on it are the URL
// API's). Plain WHATWG URL parsing: no library states these rules.
import { z } from "zod";

export const EndpointUrl = z
  .url({ protocol: /^https?$/, error: "The model endpoint must be an http(s) URL, e.g. https://api.example.com/v1" })
  .max(2000, "The model endpoint's URL is longer than 2000 characters.")
  .superRefine((url, ctx) => {
    const problem = endpointUrlProblem(url);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .transform(storedEndpointUrl);

/** Query parameters that carry a credential in a URL (compared lowercased, `-` and `_` alike). */
const CREDENTIAL_PARAMS = new Set(["apikey", "api-key", "key", "token", "access-token", "auth", "authorization", "password", "secret", "sig", "signature", "code"]);
const isCredentialParam = (name: string) => CREDENTIAL_PARAMS.has(name.toLowerCase().replace(/_/g, "-"));
const KEY_FIELD = "put the key in the API key field (it is stored encrypted and never shown)";

/** Why a URL cannot be stored as a model endpoint, or null. */
export function endpointUrlProblem(text: string): string | null {
  const url = new URL(text);
  if (url.username || url.password) return `The endpoint URL carries a user name or password (user:password@): ${KEY_FIELD}, and save the URL without it.`;
  const params = [...url.searchParams.keys()];
  const credential = params.find(isCredentialParam);
  if (credential) return `The endpoint URL carries a credential in its query (${credential}=…): ${KEY_FIELD}, and save the URL without the query.`;
  if (url.search || url.hash) return `The endpoint URL must be an origin and a path, e.g. https://api.example.com/v1, without a query (?…) or fragment (#…).`;
  return null;
}

/** What is stored of an endpoint URL: its origin and path, without a trailing slash. */
export function storedEndpointUrl(text: string): string {
  const url = new URL(text);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * The URL of a path under an endpoint (e.g. "chat/completions"), built with the URL API: whatever a base URL
 * holds besides its origin and path never lands in the path or the query of the call.
 */
export function endpointUrl(baseUrl: string, path: string): string {
  const url = new URL(storedEndpointUrl(baseUrl));
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return url.href;
}

/**
 * A URL stored before endpoints were origin + path, cleaned: what it should have been, and the one secret it held
 * (a password, or a single credential parameter's value) — which becomes the encrypted key when none is set.
 * Null when the URL is clean already (or no URL at all).
 */
export function cleanedEndpointUrl(text: string): { url: string; secret: string | null } | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (!url.username && !url.password && !url.search && !url.hash && storedEndpointUrl(text) === text) return null;
  const secrets = [
    ...(url.password ? [decodeURIComponent(url.password)] : url.username ? [decodeURIComponent(url.username)] : []),
    ...[...url.searchParams.entries()].filter(([name, value]) => isCredentialParam(name) && value).map(([, value]) => value),
  ];
  return { url: storedEndpointUrl(text), secret: secrets.length === 1 ? secrets[0]! : null };
}
