// Models per role (planner, summarizer: text, cheap; executor: vision; guard: optional, cheap), each an
// OpenAI-compatible endpoint.
import { systemClock, type Clock, type Model, type Models } from "../ports.ts";
import { withCircuitBreaker } from "./circuit-breaker.ts";
import { createOpenAIModel, type OpenAIModelInit } from "./openai.ts";

export type RoleModelInit = Omit<OpenAIModelInit, "clock"> & {
  /** Retries after a retryable failure (5xx, 429, timeout); default the run's modelRetries. */
  retries?: number;
  /** Rest the endpoint after this many failures in a row (circuit breaker); default 5 failures, 30 s. */
  breaker?: { failures?: number; cooldownMs?: number };
  /** The model adapter the role's model speaks (model/adapters, e.g. { id: "ui-tars", version: "1.5" }); default phoneloop. */
  adapter?: { id: string; version?: string };
};

export interface ModelsInit {
  executor: RoleModelInit;
  /** Defaults to the executor's endpoint. */
  planner?: RoleModelInit;
  /** Defaults to the planner's endpoint. */
  summarizer?: RoleModelInit;
  /** The permission checkpoint's second opinion when its rules are unsure; absent = rules only. */
  guard?: RoleModelInit;
  clock?: Clock;
}

export function createModels(init: ModelsInit): Models {
  const clock = init.clock ?? systemClock;
  const role = ({ retries, breaker, adapter, ...m }: RoleModelInit): Model => {
    const model = Object.assign(createOpenAIModel({ ...m, clock }), retries === undefined ? {} : { retries }, adapter ? { adapter } : {});
    return withCircuitBreaker(model, { clock, ...breaker });
  };
  const planner = init.planner ?? init.executor;
  return {
    executor: role(init.executor),
    planner: role(planner),
    summarizer: role(init.summarizer ?? planner),
    ...(init.guard ? { guard: role(init.guard) } : {}),
  };
}
