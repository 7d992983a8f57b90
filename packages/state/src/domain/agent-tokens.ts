// How long an agent token lives, a rule the API applies and the web app states to people.

/**
 * How long a browser tab's token may go unused before it expires. A tab keeps its token in memory only, so a closed
 * tab's token is never used again; a tab at work (a run, stand-by heartbeats) uses it every few seconds.
 */
export const TAB_TOKEN_IDLE_MS = 12 * 60 * 60_000;
