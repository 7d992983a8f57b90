// The perform effect family: carrying out the executor's action on the phone (retried, a lost connection final),
// or waiting out a wait action, then letting the device settle: the frame it settled on (and the tree it read for
// its loading check) are the next step's observation. The phone's own time on the action is counted apart.
import { describeAction } from "../../actions/schema.ts";
import type { InputEffect, Observation } from "../executor.ts";
import { perform, retryDevice } from "../effects.ts";
import { guard, type RunContext } from "../state.ts";
import type { Senses } from "./sense.ts";
import type { StepTimings } from "./timings.ts";

export async function performAction(ctx: RunContext, e: Extract<InputEffect, { type: "perform" }>, senses: Senses, timings: StepTimings): Promise<Observation> {
  const clock = ctx.ports.clock;
  const a = e.action;
  if (a.type === "wait") {
    const waiting = clock.monotonic();
    await clock.sleep(a.ms ?? 1000, ctx.signal).catch(() => undefined);
    timings.actionMs += clock.monotonic() - waiting;
    return { type: "performed", outcome: "waited" };
  }
  // The action's time is the attempt that carried it out (a failed attempt and the pause before a retry are not).
  const done = await retryDevice(ctx, describeAction(a), ctx.config.executeRetries, async () => {
    const attempt = clock.monotonic();
    await perform(ctx.ports.device, a, e.px, e.screen);
    timings.actionMs += clock.monotonic() - attempt;
  });
  guard(ctx);
  if (!done.ok) return { type: "perform_failed", lost: done.lost, message: done.message, attempts: done.attempts };
  // Settling is the device's: the frame it settled on (and the tree it read for its loading check) are the next
  // step's observation.
  const { timeoutMs, intervalMs, requiredMatches, minQuietMs } = ctx.config.stable;
  const stable = await ctx.ports.device.waitForStable({ timeoutMs, intervalMs, requiredMatches, minQuietMs, checkLoadingIndicators: true }).catch(() => null);
  guard(ctx);
  senses.settled = stable ? { screenshot: stable.screenshot, ...(stable.stable && stable.tree ? { tree: stable.tree } : {}) } : null;
  return { type: "performed", outcome: stable && !stable.stable ? "ok (screen still changing)" : "ok" };
}
