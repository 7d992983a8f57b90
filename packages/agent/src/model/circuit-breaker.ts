// A circuit breaker per role model: after `failures` retryable failures in a row (5xx, 429, timeouts, network)
// the endpoint is given `cooldownMs` of rest — calls fail at once with CIRCUIT_OPEN instead of piling onto a
// struggling endpoint — then one trial call decides (half-open). Hand-written: the breaker libraries (opossum)
// count thrown errors on the wall clock; the Model port returns Results and the runtime's time is the injected Clock.
import type { Clock, Model, ModelError } from "../ports.ts";

export interface CircuitBreakerInit {
  /** Retryable failures in a row that open the circuit. Default 5. */
  failures?: number;
  /** How long an open circuit refuses calls (ms). Default 30 000. */
  cooldownMs?: number;
  clock: Clock;
}

export function withCircuitBreaker(model: Model, init: CircuitBreakerInit): Model {
  const threshold = init.failures ?? 5;
  const cooldownMs = init.cooldownMs ?? 30_000;
  let inARow = 0;
  let openUntil = 0;
  return {
    name: model.name,
    recordsUsage: model.recordsUsage,
    ...(model.retries !== undefined ? { retries: model.retries } : {}),
    ...(model.adapter ? { adapter: model.adapter } : {}),
    async complete(req) {
      const now = init.clock.monotonic();
      if (now < openUntil) {
        const error: ModelError = {
          code: "CIRCUIT_OPEN",
          message: `The ${model.name} endpoint failed ${inARow} times in a row; calls pause for ${Math.ceil((openUntil - now) / 1000)} s more before one is tried again.`,
          retryable: true,
        };
        return { ok: false, error };
      }
      const r = await model.complete(req);
      if (r.ok || !r.error.retryable) inARow = 0;
      else if (++inARow >= threshold) openUntil = init.clock.monotonic() + cooldownMs;
      return r;
    },
  };
}
