// What `npm start` prints of its children and, last, how to get in — with no secret that outlives its use: the demo
// phone's control token (only the API needs it) is masked in the phone's lines, and the setup link is repeated only
// while it still opens setup.

/** What stands in the phone's lines for its control token. */
export const TOKEN_HELD_BY_API = "(held by the API, not shown: the web app's 'Use the demo phone' allows a browser)";

/** A child's output without the demo phone's control token: the token itself, its "Control token" line, any Bearer value. */
export function maskControlToken(text: string, token: string | undefined): string {
  const masked = token ? text.split(token).join(TOKEN_HELD_BY_API) : text;
  return masked.replace(/(Control token\s+)\S+/g, `$1${TOKEN_HELD_BY_API}`).replace(/(Bearer\s+)[A-Za-z0-9_-]{20,}/g, "$1<control token>");
}

/**
 * The last lines of the output: the setup link while it still opens setup (`linkOpens`: nobody used it, it has not
 * expired); otherwise where people sign in and how others join, never a spent link.
 */
export function accountsNote(opts: { setupLink: string | undefined; linkOpens: boolean; webUrl: string }): string {
  if (opts.setupLink && opts.linkOpens) return `\nFirst start: open this one-time link to create your admin account and team:\n  ${opts.setupLink}\n`;
  return `\nSign in at ${opts.webUrl}/sign-in. Others join through invite links an admin makes on the Team page; model endpoints and keys are on Settings → Models.\n`;
}
