// What an executor step's phases took, gathered while the runner performs its effects: per phase (ms), the model's
// time and the phone's own time carrying out the action, the prompt's size and the model's raw replies. The step row
// stores them and the step event reports them; then they start again for the next step.
import type { AgentEvent, RunContext } from "../state.ts";

export class StepTimings {
  phases: Record<string, number> = {};
  promptTokens = 0;
  modelMs = 0;
  /** The phone's own time carrying out the step's action (inside the perform phase): the action, not overhead. */
  actionMs = 0;
  /** The model's raw replies of the step being taken: the replay shows them, labelled as the model's words. */
  replies: string[] = [];

  constructor(private readonly ctx: RunContext) {}

  async timed<T>(phase: string, f: () => Promise<T>): Promise<T> {
    const started = this.ctx.ports.clock.monotonic();
    try {
      return await f();
    } finally {
      this.phases[phase] = (this.phases[phase] ?? 0) + (this.ctx.ports.clock.monotonic() - started);
    }
  }

  /** Emits an event; a step's event carries the step's figures, which then start again. */
  emit(event: AgentEvent): void {
    if (event.type !== "step") return this.ctx.onEvent?.(event);
    const total = Object.values(this.phases).reduce((a, b) => a + b, 0);
    this.ctx.onEvent?.({ ...event, promptTokens: this.promptTokens, modelMs: this.modelMs, actionMs: this.actionMs, overheadMs: total - this.modelMs - this.actionMs, phases: this.phases });
    this.phases = {};
    this.actionMs = 0;
    this.replies = [];
    this.promptTokens = 0;
    this.modelMs = 0;
  }
}
