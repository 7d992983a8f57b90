// Time is injected. Without a clock, operators use the database's now() (one time source for every peer);
// tests pass a manual clock and move it instead of sleeping.
export interface Clock {
  now(): Date;
}

export interface ManualClock extends Clock {
  set(at: Date): void;
  advance(ms: number): void;
}

export function manualClock(start: Date = new Date()): ManualClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (at) => {
      current = at.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}
