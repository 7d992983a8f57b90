// Models per role (planner, summarizer: text, cheap; executor: vision; guard: optional, cheap), each an
// OpenAI-compatible endpoint.
import type { Clock, Models } from "../ports.ts";
import { createOpenAIModel, type OpenAIModelInit } from "./openai.ts";

export type RoleModelInit = Omit<OpenAIModelInit, "clock">;

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
  const withClock = (m: RoleModelInit): OpenAIModelInit => ({ ...m, ...(init.clock ? { clock: init.clock } : {}) });
  const planner = init.planner ?? init.executor;
  return {
    executor: createOpenAIModel(withClock(init.executor)),
    planner: createOpenAIModel(withClock(planner)),
    summarizer: createOpenAIModel(withClock(init.summarizer ?? planner)),
    ...(init.guard ? { guard: createOpenAIModel(withClock(init.guard)) } : {}),
  };
}
