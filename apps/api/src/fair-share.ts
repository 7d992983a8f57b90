// One caller's share of the API: each caller (a member, an agent token, a share link) runs at most
// CALLS_AT_ONCE_PER_CALLER procedure calls at a time; its further calls wait their turn in its own queue. A batch of
// fifty calls, or twenty such batches at once, then holds a few of the database pool's connections, not all of them,
// and another member's read is served beside it instead of behind it.
import pLimit, { type LimitFunction } from "p-limit";
import type { Principal } from "./auth/principal.ts";

/** Calls one caller runs at once (the database pool has 20 connections: several callers at full share still fit). */
export const CALLS_AT_ONCE_PER_CALLER = 4;

const queues = new Map<string, LimitFunction>();

function callerKey(p: Principal): string {
  switch (p.kind) {
    case "member":
      return `member:${p.userId}`;
    case "agent":
      return `token:${p.tokenId}`;
    case "share":
      return `share:${p.shareId}`;
    case "anonymous":
      return "anonymous";
  }
}

/** Runs `work` in the caller's turn; the caller's queue is dropped once it is empty. */
export async function inCallersTurn<T>(principal: Principal, work: () => Promise<T>): Promise<T> {
  const key = callerKey(principal);
  let queue = queues.get(key);
  if (!queue) {
    queue = pLimit(CALLS_AT_ONCE_PER_CALLER);
    queues.set(key, queue);
  }
  try {
    return await queue(work);
  } finally {
    if (queue.activeCount === 0 && queue.pendingCount === 0 && queues.get(key) === queue) queues.delete(key);
  }
}
