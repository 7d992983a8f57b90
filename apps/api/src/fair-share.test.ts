// One caller's calls run a few at a time; another caller's call is not queued behind them.
import { describe, expect, it } from "vitest";
import type { Principal } from "./auth/principal.ts";
import { CALLS_AT_ONCE_PER_CALLER, inCallersTurn } from "./fair-share.ts";

const agent: Principal = { kind: "agent", agentId: "a1", tokenId: "t1", workspaceId: "w1", issuedBy: "u1", issuerRole: "operator", tab: false };
const member: Principal = { kind: "member", userId: "u2", workspaceId: "w1", role: "viewer", name: "Viewer", email: "viewer@example.test" };

describe("a caller's turn", () => {
  it(`runs at most ${CALLS_AT_ONCE_PER_CALLER} of one caller's calls at once, and another caller's call beside them`, async () => {
    let running = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const held = () =>
      new Promise<void>((done) => {
        running++;
        most = Math.max(most, running);
        release.push(() => {
          running--;
          done();
        });
      });
    const batch = Array.from({ length: 50 }, () => inCallersTurn(agent, held));
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(CALLS_AT_ONCE_PER_CALLER);
    // The member's read runs now, while 46 of the agent's calls still wait.
    expect(await inCallersTurn(member, async () => "read")).toBe("read");
    while (release.length) {
      release.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(batch);
    expect(most).toBe(CALLS_AT_ONCE_PER_CALLER);
    expect(running).toBe(0);
  });

  it("a failed call gives its turn back", async () => {
    await expect(inCallersTurn(agent, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    const all = await Promise.all(Array.from({ length: CALLS_AT_ONCE_PER_CALLER * 2 }, (_, i) => inCallersTurn(agent, async () => i)));
    expect(all).toHaveLength(CALLS_AT_ONCE_PER_CALLER * 2);
  });
});
