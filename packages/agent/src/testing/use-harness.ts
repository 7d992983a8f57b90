// The one way a runtime test gets its harness: the call registers a vitest afterEach that stops every harness the
// test started. Kept out of ./index.ts and ./harness.ts, which Playwright specs load: this module imports vitest.
import { afterEach } from "vitest";
import { startHarness, type Harness, type HarnessInit } from "./harness.ts";

/** Starts a harness for the running test; an afterEach this call registers stops each one the test started. */
export function useHarness(): (init: HarnessInit) => Promise<Harness> {
  const live: Harness[] = [];
  afterEach(async () => {
    for (const h of live.splice(0)) await h.stop();
  });
  return async (init) => {
    const h = await startHarness(init);
    live.push(h);
    return h;
  };
}
