// A pass the API runs on a timer (the reaper, the blob collector): every intervalMs one pass, passes never overlap
// (a pass asked for while one runs waits for it), a failed pass is logged and the next interval tries again, and
// close() waits for the pass in flight. Hand-written: it is one setTimeout chain, which no scheduler library shortens.

export interface PeriodicPass<R> {
  /** One pass now (also what each interval runs). */
  tick(): Promise<R>;
  close(): Promise<void>;
}

export function startPeriodicPass<R>(name: string, intervalMs: number, pass: () => Promise<R>, log: (line: string) => void): PeriodicPass<R> {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let closed = false;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      running = pass()
        .catch((e: unknown) => log(`${name}: pass failed, retried in ${intervalMs} ms (${e instanceof Error ? e.name : typeof e}; the message is left out: a store's error may name its endpoint)`))
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    tick: () => {
      const p = running.then(pass);
      running = p.catch(() => undefined);
      return p;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
