// The agent's ControlPlane port over the API: each method forwards to one procedure and maps the row's shape.
// Every rule (the next todo, leases and fencing, idempotency, replans, turn routing and transitions) is the state
// core's; nothing here decides anything.
import {
  systemClock,
  type AgentRegistration,
  type ClaimResult,
  type Clock,
  type ControlPlane,
  type CreateGoalInput,
  type Evidence,
  type EvidenceInput,
  type EvidenceKind,
  type GateResolution,
  type Goal,
  type Lease,
  type LeaseRef,
  type OpenGateInput,
  type ReplanOp,
  type Run,
  type RunEndReason,
  type RunStatus,
  type ShouldRunResult,
  type SpendAmount,
  type StepInput,
  type Todo,
  type TurnResultInput,
  type TurnResultOutcome,
  type TurnRoute,
} from "@phoneloop/agent/ports";
import { trimUrl, type ApiClient } from "./api-client.ts";
import { toBase64 } from "./base64.ts";
import { codeOf, ControlPlaneError, toControlPlaneError } from "./errors.ts";
import { subscribeEvents, type EventSubscription } from "./events.ts";
import { evidenceOf, goalOf, leaseOf, objectOf, runOf, todoOf } from "./rows.ts";

export interface ControlPlaneOptions {
  /** The API the client talks to; named in the message when it cannot be reached. */
  apiUrl: string;
  /** The team member recorded as the creator of goals this runner creates; else the registered agent. */
  memberId?: string | undefined;
  /** waitForGate's pauses between reads. */
  clock?: Clock;
  /** Longest pause between two reads of a waited-on gate (ms); the event stream wakes it sooner. Default 2000. */
  gatePollMaxMs?: number;
}

export function createControlPlane(client: ApiClient, opts: ControlPlaneOptions): ControlPlane {
  return new ApiControlPlane(client, opts);
}

class ApiControlPlane implements ControlPlane {
  private readonly apiUrl: string;
  private readonly clock: Clock;
  private readonly gatePollMaxMs: number;
  /** The last agent registered through this port: the creator of a goal when no member is named. */
  private registeredAgentId: string | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly opts: ControlPlaneOptions,
  ) {
    this.apiUrl = trimUrl(opts.apiUrl);
    this.clock = opts.clock ?? systemClock;
    this.gatePollMaxMs = opts.gatePollMaxMs ?? 2000;
  }

  /** One procedure call; its failure as ControlPlaneError / ControlPlaneConflict naming the procedure. */
  private async call<T>(procedure: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw toControlPlaneError(e, this.apiUrl, procedure);
    }
  }

  /** A read that answers null for NOT_FOUND. */
  private async orNull<T>(procedure: string, f: () => Promise<T>): Promise<T | null> {
    try {
      return await this.call(procedure, f);
    } catch (e) {
      if (codeOf(e) === "NOT_FOUND") return null;
      throw e;
    }
  }

  // ── agents, goals ──
  async registerAgent(reg: AgentRegistration): Promise<{ agentId: string }> {
    const id = reg.id ?? `agent_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    const agent = await this.call("agent.register", () =>
      this.client.agent.register.mutate({ id, name: reg.name, kind: reg.kind, capabilities: reg.capabilities, meta: reg.meta ?? {} }),
    );
    this.registeredAgentId = agent.id;
    return { agentId: agent.id };
  }

  async heartbeatAgent(agentId: string): Promise<void> {
    await this.call("agent.heartbeat", () => this.client.agent.heartbeat.mutate({ agentId }));
  }

  async createGoal(input: CreateGoalInput): Promise<Goal> {
    const createdBy = this.opts.memberId ?? this.registeredAgentId;
    if (!createdBy) {
      throw new ControlPlaneError("INVALID_INPUT", "goal.create: a goal needs a creator: register the agent first, or name a team member (PHONELOOP_MEMBER / --member).");
    }
    const goal = await this.call("goal.create", () =>
      this.client.goal.create.mutate({
        title: input.title ?? titleOf(input.objective),
        objective: input.objective,
        bounds: input.bounds ?? [],
        nonGoals: input.nonGoals ?? [],
        acceptance: input.acceptance ?? [],
        createdBy,
      }),
    );
    return goalOf(goal);
  }

  async getGoal(goalId: string): Promise<Goal | null> {
    const goal = await this.orNull("goal.get", () => this.client.goal.get.query({ goalId }));
    return goal ? goalOf(goal) : null;
  }

  // ── todos, leases ──
  async listTodos(goalId: string): Promise<Todo[]> {
    return (await this.call("todo.list", () => this.client.todo.list.query({ goalId }))).map(todoOf);
  }

  async replanTodos(input: { goalId: string; idempotencyKey: string; reason: string; ops: ReplanOp[] }): Promise<Todo[]> {
    await this.call("todo.replan", () => this.client.todo.replan.mutate(input));
    return this.listTodos(input.goalId);
  }

  async reopenTodo(input: { todoId: string; reason: string }): Promise<Todo> {
    const r = await this.call("todo.reopen", () => this.client.todo.reopen.mutate(input));
    return todoOf(r.todo);
  }

  async claimNext(input: { agentId: string; goalId: string; ttlMs: number; idempotencyKey?: string }): Promise<ClaimResult> {
    const r = await this.call("todo.claimNext", () => this.client.todo.claimNext.mutate(input));
    if (!r.claimed) return { claimed: false, reason: r.reason };
    return { claimed: true, todo: todoOf(r.todo), lease: leaseOf(r.lease), reclaimedFrom: r.reclaimedFrom };
  }

  async startTodo(lease: LeaseRef): Promise<void> {
    await this.call("todo.start", () => this.client.todo.start.mutate(lease));
  }

  async renewLease(lease: LeaseRef, ttlMs: number): Promise<Lease> {
    return leaseOf(await this.call("lease.renew", () => this.client.lease.renew.mutate({ ...lease, ttlMs })));
  }

  async releaseLease(lease: LeaseRef, reason: string): Promise<void> {
    await this.call("lease.release", () => this.client.lease.release.mutate({ ...lease, reason }));
  }

  // ── turns, quota ──
  async routeTurn(input: { todoId: string; agentId: string }): Promise<{ route: TurnRoute; reason: string }> {
    const r = await this.call("turn.route", () => this.client.turn.route.mutate(input));
    return { route: r.route, reason: r.reason };
  }

  async recordTurnResult(input: TurnResultInput): Promise<TurnResultOutcome> {
    const r = await this.call("turn.result", () =>
      this.client.turn.result.mutate({
        idempotencyKey: input.idempotencyKey,
        ...input.lease,
        kind: input.kind,
        summary: input.summary,
        ...(input.values ? { values: input.values } : {}),
        ...(input.spend ? { spend: input.spend } : {}),
      }),
    );
    return { kind: r.kind, todo: todoOf(r.todo), duplicate: r.duplicate };
  }

  async shouldRun(input: { agentId: string; goalId: string; todoId?: string }): Promise<ShouldRunResult> {
    const r = await this.call("quota.shouldRun", () => this.client.quota.shouldRun.query(input));
    return r.decision === "run" ? { decision: "run" } : { decision: "skip", reason: r.reason, message: r.message, retryAfterMs: r.retryAfterMs };
  }

  async spendQuota(input: { key: string; agentId: string; goalId: string; todoId?: string } & SpendAmount): Promise<{ spent: boolean; duplicate: boolean }> {
    const r = await this.call("quota.spend", () => this.client.quota.spend.mutate(input));
    return { spent: !r.replay, duplicate: r.replay };
  }

  // ── evidence ──
  async appendEvidence(e: EvidenceInput): Promise<{ evidenceId: string; created: boolean }> {
    const blob = e.blob;
    const stored = blob ? await this.call("evidence.putBlob", () => this.client.evidence.putBlob.mutate({ bytes: toBase64(blob.bytes), mime: blob.mime })) : null;
    const r = await this.call("evidence.append", () =>
      this.client.evidence.append.mutate({
        idempotencyKey: e.idempotencyKey,
        kind: e.kind,
        goalId: e.goalId,
        ...(e.runId ? { runId: e.runId } : {}),
        ...(e.todoId ? { todoId: e.todoId } : {}),
        ...(e.lease ? { agentId: e.lease.agentId, leaseKey: e.lease.leaseKey } : {}),
        ...(e.stepIndex !== undefined ? { stepIndex: e.stepIndex } : {}),
        summary: e.summary,
        data: e.data ?? {},
        ...(stored ? { blobSha256: stored.sha256 } : {}),
      }),
    );
    return { evidenceId: r.evidence.id, created: r.created };
  }

  async listEvidence(filter: { goalId: string; runId?: string; kind?: EvidenceKind }): Promise<Evidence[]> {
    return (await this.call("evidence.list", () => this.client.evidence.list.query(filter))).map(evidenceOf);
  }

  // ── gates ──
  async openGate(input: OpenGateInput): Promise<{ gateId: string; created: boolean }> {
    const r = await this.call("gate.open", () => this.client.gate.open.mutate(input));
    return { gateId: r.gate.id, created: r.created };
  }

  /**
   * Reads gate.get until the gate is no longer open. The goal's event stream wakes the wait as soon as something
   * happens to the gate; polling with backoff covers a stream that is slow or down (gate.get is the truth).
   */
  async waitForGate(gateId: string, signal?: AbortSignal): Promise<GateResolution> {
    let pause = 50;
    let wake = new AbortController();
    let stream: EventSubscription | undefined;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const gate = await this.call("gate.get", () => this.client.gate.get.query({ gateId }));
        if (gate.status !== "open") {
          return { status: gate.status, answer: "answer" in gate ? gate.answer : null, rationale: "rationale" in gate ? gate.rationale : null };
        }
        // Once the stream is live, one more read catches a decision made before it started.
        stream ??= subscribeEvents(this.client, { goalId: gate.goalId }, {
          onStarted: () => wake.abort(),
          onEvent: (event) => event.subjectId === gateId && wake.abort(),
        });
        try {
          await this.clock.sleep(pause, signal ? AbortSignal.any([signal, wake.signal]) : wake.signal);
        } catch (e) {
          if (signal?.aborted) throw e;
        }
        if (wake.signal.aborted) wake = new AbortController();
        pause = Math.min(this.gatePollMaxMs, pause * 2);
      }
    } finally {
      stream?.unsubscribe();
    }
  }

  // ── runs, checkpoints, steps ──
  async startRun(input: { id?: string; goalId: string; agentId: string }): Promise<Run> {
    return runOf(await this.call("run.start", () => this.client.run.start.mutate(input)));
  }

  async resumeRun(input: { runId: string; agentId: string }): Promise<Run> {
    return runOf(await this.call("run.resume", () => this.client.run.resume.mutate(input)));
  }

  async getRun(runId: string): Promise<(Run & { checkpoint: Record<string, unknown> | null }) | null> {
    const run = await this.orNull("run.get", () => this.client.run.get.query({ runId }));
    if (!run) return null;
    const checkpoint = objectOf(run.checkpoint);
    return { ...runOf(run), checkpoint: Object.keys(checkpoint).length > 0 ? checkpoint : null };
  }

  async saveCheckpoint(input: { runId: string; agentId: string; checkpoint: Record<string, unknown> }): Promise<void> {
    await this.call("run.checkpoint", () => this.client.run.checkpoint.mutate(input));
  }

  async appendStep(step: StepInput): Promise<{ created: boolean }> {
    const r = await this.call("run.appendStep", () => this.client.run.appendStep.mutate(step));
    return { created: r.created };
  }

  async finishRun(input: { runId: string; agentId: string; status: Exclude<RunStatus, "running">; endReason: RunEndReason; summary: string }): Promise<void> {
    await this.call("run.finish", () => this.client.run.finish.mutate(input));
  }
}

/** A goal created from its objective alone is titled by its first line. */
function titleOf(objective: string): string {
  const line = objective.trim().split("\n")[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
