// The agent's ControlPlane port over the API: each method forwards to one procedure and maps the row's shape.
// Every rule (the next todo, leases and fencing, idempotency, replans, turn routing and transitions) is the state
// core's; nothing here decides anything.
import { systemClock, type Clock, type ControlPlane, type LessonRecord, type ShortcutRecord, type SkillRecord } from "@phoneloop/agent/ports";
import { PAGE_LIMIT } from "@phoneloop/state/domain";
import { trimUrl, type ApiClient } from "./api-client.ts";
import { uploadBlob } from "./blobs.ts";
import { codeOf, toControlPlaneError } from "./errors.ts";
import { subscribeEvents, type EventSubscription } from "./events.ts";
import { readAllPages } from "./pages.ts";
import { DEFAULT_RETRY, withRetry, type OutageReport, type RetryNotice, type RetryPolicy } from "./retry.ts";
import { evidenceOf, goalOf, leaseOf, objectOf, runOf, todoOf } from "./rows.ts";

export interface ControlPlaneOptions {
  /** The API the client talks to; named in the message when it cannot be reached. */
  apiUrl: string;
  /** waitForGate's pauses between reads, the retries' backoff, and the times and durations of outages (retry.ts). */
  clock?: Clock;
  /** Longest pause between two reads of a waited-on gate (ms); the event stream wakes it sooner. Default 2000. */
  gatePollMaxMs?: number;
  /** How long and how often calls are retried when the API does not answer or answers 5xx (see retry.ts). */
  retry?: Partial<RetryPolicy>;
  /** Told of each failed attempt that is tried again (a worker logs them: the API or its database is away). */
  onRetry?: (n: RetryNotice) => void;
  /**
   * Told of each outage once it is over, with its true duration: what failed, when it started, how long until the API
   * answered again or the client gave up, how many attempts (OutageReport in retry.ts). A runtime records these as
   * evidence, so a brief outage leaves a row instead of an unexplained gap.
   */
  onOutage?: (r: OutageReport) => void;
}

export function createControlPlane(client: ApiClient, opts: ControlPlaneOptions): ControlPlane {
  const apiUrl = trimUrl(opts.apiUrl);
  const clock = opts.clock ?? systemClock;
  const gatePollMaxMs = opts.gatePollMaxMs ?? 2000;
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
  const hooks = { ...(opts.onRetry ? { onRetry: opts.onRetry } : {}), ...(opts.onOutage ? { onOutage: opts.onOutage } : {}) };

  /** One procedure call, retried while the API is away (retry.ts); its failure as ControlPlaneError / ControlPlaneConflict naming the procedure. */
  const call = async <T>(procedure: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await withRetry(procedure, f, clock, retry, undefined, hooks);
    } catch (e) {
      throw toControlPlaneError(e, apiUrl, procedure);
    }
  };
  /** A read that answers null for NOT_FOUND. */
  const orNull = async <T>(procedure: string, f: () => Promise<T>): Promise<T | null> => {
    try {
      return await call(procedure, f);
    } catch (e) {
      if (codeOf(e) === "NOT_FOUND") return null;
      throw e;
    }
  };
  const listTodos = async (goalId: string) =>
    (await readAllPages((cursor) => call("todo.list", () => client.todo.list.query({ goalId, cursor, limit: PAGE_LIMIT.max })))).map(todoOf);

  return {
    // ── agents, goals ──
    async registerAgent(reg) {
      const id = reg.id ?? newAgentId();
      const agent = await call("agent.register", () => client.agent.register.mutate({ id, name: reg.name, kind: reg.kind, capabilities: reg.capabilities, meta: reg.meta ?? {} }));
      return { agentId: agent.id };
    },

    async heartbeatAgent(agentId) {
      await call("agent.heartbeat", () => client.agent.heartbeat.mutate({ agentId }));
    },

    async createGoal(input) {
      const goal = await call("goal.create", () =>
        client.goal.create.mutate({
          title: input.title ?? titleOf(input.objective),
          objective: input.objective,
          bounds: input.bounds ?? [],
          nonGoals: input.nonGoals ?? [],
          acceptance: input.acceptance ?? [],
        }),
      );
      return goalOf(goal);
    },

    async getGoal(goalId) {
      const goal = await orNull("goal.get", () => client.goal.get.query({ goalId }));
      return goal ? goalOf(goal) : null;
    },

    // ── todos, leases ──
    listTodos,

    async replanTodos(input) {
      await call("todo.replan", () => client.todo.replan.mutate(input));
      return listTodos(input.goalId);
    },

    async reopenTodo(input) {
      return todoOf((await call("todo.reopen", () => client.todo.reopen.mutate(input))).todo);
    },

    async claimNext(input) {
      const r = await call("todo.claimNext", () => client.todo.claimNext.mutate(input));
      if (!r.claimed) return { claimed: false, reason: r.reason, ...(r.refusal ? { refusal: r.refusal } : {}) };
      return { claimed: true, todo: todoOf(r.todo), lease: leaseOf(r.lease), reclaimedFrom: r.reclaimedFrom };
    },

    async startTodo(lease) {
      await call("todo.start", () => client.todo.start.mutate(lease));
    },

    async renewLease(lease, ttlMs) {
      return leaseOf(await call("lease.renew", () => client.lease.renew.mutate({ ...lease, ttlMs })));
    },

    async releaseLease(lease, reason) {
      await call("lease.release", () => client.lease.release.mutate({ ...lease, reason }));
    },

    // ── turns, quota ──
    async routeTurn(input) {
      const r = await call("turn.route", () => client.turn.route.mutate(input));
      return { route: r.route, reason: r.reason };
    },

    async recordTurnResult(input) {
      const r = await call("turn.result", () =>
        client.turn.result.mutate({
          idempotencyKey: input.idempotencyKey,
          ...input.lease,
          kind: input.kind,
          summary: input.summary,
          ...(input.values ? { values: input.values } : {}),
          ...(input.spend ? { spend: input.spend } : {}),
        }),
      );
      return { kind: r.kind, todo: todoOf(r.todo), duplicate: r.duplicate };
    },

    async shouldRun(input) {
      const r = await call("quota.shouldRun", () => client.quota.shouldRun.query(input));
      return r.decision === "run" ? { decision: "run" } : { decision: "skip", reason: r.reason, message: r.message, retryAfterMs: r.retryAfterMs };
    },

    async spendQuota(input) {
      const r = await call("quota.spend", () => client.quota.spend.mutate(input));
      return { spent: !r.duplicate, duplicate: r.duplicate };
    },

    // ── evidence ──
    async putBlob(blob) {
      return call("blob.upload", () => uploadBlob(client, blob));
    },

    async appendEvidence(e) {
      const blob = e.blob;
      const stored = blob ? await call("blob.upload", () => uploadBlob(client, blob)) : null;
      const r = await call("evidence.append", () =>
        client.evidence.append.mutate({
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
    },

    async listEvidence(filter) {
      return (await readAllPages((cursor) => call("evidence.list", () => client.evidence.list.query({ ...filter, cursor, limit: PAGE_LIMIT.max })))).map(evidenceOf);
    },

    // ── gates ──
    async openGate({ lease, ...input }) {
      const r = await call("gate.open", () => client.gate.open.mutate({ ...input, ...(lease ? { agentId: lease.agentId, leaseKey: lease.leaseKey } : {}) }));
      return { gateId: r.gate.id, created: r.created };
    },

    /**
     * Reads gate.get until the gate is no longer open. The goal's event stream wakes the wait as soon as something
     * happens to the gate; polling with backoff covers a stream that is slow or down (gate.get is the truth).
     */
    async waitForGate(gateId, signal) {
      let pause = 50;
      let wake = new AbortController();
      let stream: EventSubscription | undefined;
      try {
        for (;;) {
          signal?.throwIfAborted();
          const gate = await call("gate.get", () => client.gate.get.query({ gateId }));
          if (gate.status !== "open") {
            return { status: gate.status, answer: "answer" in gate ? gate.answer : null, rationale: "rationale" in gate ? gate.rationale : null };
          }
          // Once the stream is live, one more read catches a decision made before it started.
          stream ??= subscribeEvents(client, { goalId: gate.goalId }, {
            onStarted: () => wake.abort(),
            onEvent: (event) => event.subjectId === gateId && wake.abort(),
          });
          try {
            await clock.sleep(pause, signal ? AbortSignal.any([signal, wake.signal]) : wake.signal);
          } catch (e) {
            if (signal?.aborted) throw e;
          }
          if (wake.signal.aborted) wake = new AbortController();
          pause = Math.min(gatePollMaxMs, pause * 2);
        }
      } finally {
        stream?.unsubscribe();
      }
    },

    // ── runs, checkpoints, steps ──
    async startRun(input) {
      return runOf(await call("run.start", () => client.run.start.mutate(input)));
    },

    async resumeRun(input) {
      return runOf(await call("run.resume", () => client.run.resume.mutate(input)));
    },

    async getRun(runId) {
      const run = await orNull("run.get", () => client.run.get.query({ runId }));
      if (!run) return null;
      const checkpoint = objectOf(run.checkpoint);
      return { ...runOf(run), checkpoint: Object.keys(checkpoint).length > 0 ? checkpoint : null };
    },

    async saveCheckpoint(input) {
      await call("run.checkpoint", () => client.run.checkpoint.mutate(input));
    },

    async appendStep(step) {
      return { created: (await call("run.appendStep", () => client.run.appendStep.mutate(step))).created };
    },

    async recordStep(r) {
      const out = await call("run.recordStep", () =>
        client.run.recordStep.mutate({
          runId: r.runId,
          agentId: r.agentId,
          ...(r.todoId ? { todoId: r.todoId } : {}),
          ...(r.lease ? { leaseKey: r.lease.leaseKey } : {}),
          evidence: (r.evidence ?? []).map((e) => ({ ...e, data: e.data ?? {} })),
          ...(r.step ? { step: r.step } : {}),
          ...(r.turnResult ? { turnResult: r.turnResult } : {}),
          ...(r.checkpoint ? { checkpoint: r.checkpoint } : {}),
          route: r.route ?? false,
        }),
      );
      return {
        evidenceIds: out.evidence.map((e) => e.id),
        stepCreated: out.step ? out.step.created : null,
        turnResult: out.turnResult ? { kind: out.turnResult.kind, todo: todoOf(out.turnResult.todo), duplicate: out.turnResult.duplicate } : null,
        route: out.route ? { route: out.route.route, reason: out.route.reason } : null,
      };
    },

    async finishRun(input) {
      await call("run.finish", () => client.run.finish.mutate(input));
    },

    // ── the workspace's policy ──
    async getPolicyRules() {
      const current = await call("policy.get", () => client.policy.get.query({}));
      return current ? { version: current.version, rules: current.rules } : null;
    },

    // ── learning: skills, deeplink shortcuts, lessons ──
    async listSkills(filter) {
      return (await readAllPages((cursor) => call("skill.list", () => client.skill.list.query({ ...filter, cursor, limit: PAGE_LIMIT.max })))).map(skillOf);
    },
    async saveSkill(input) {
      return skillOf(await call("skill.save", () => client.skill.save.mutate(input)));
    },
    async recordSkillUse(input) {
      await call("skill.recordUse", () => client.skill.recordUse.mutate(input));
    },
    async listShortcuts(filter) {
      return (await readAllPages((cursor) => call("shortcut.list", () => client.shortcut.list.query({ ...filter, cursor, limit: PAGE_LIMIT.max })))).map(shortcutOf);
    },
    async saveShortcuts(input) {
      return (await call("shortcut.save", () => client.shortcut.save.mutate(input))).map(shortcutOf);
    },
    async recordShortcutValidation(input) {
      return shortcutOf(await call("shortcut.recordValidation", () => client.shortcut.recordValidation.mutate(input)));
    },
    async listLessons(filter) {
      return (await readAllPages((cursor) => call("lesson.list", () => client.lesson.list.query({ ...filter, cursor, limit: PAGE_LIMIT.max })))).map(lessonOf);
    },
    async addLessons(input) {
      return (await call("lesson.add", () => client.lesson.add.mutate(input))).map(lessonOf);
    },
  };
}

const skillOf = (r: SkillRecord): SkillRecord => ({ id: r.id, app: r.app, appVersion: r.appVersion, name: r.name, goal: r.goal, body: r.body, status: r.status, version: r.version, runId: r.runId, successes: r.successes, failures: r.failures });
const shortcutOf = (r: ShortcutRecord): ShortcutRecord => ({ id: r.id, app: r.app, appVersion: r.appVersion, uri: r.uri, activity: r.activity, status: r.status, reason: r.reason });
const lessonOf = (r: LessonRecord): LessonRecord => ({ id: r.id, app: r.app, goal: r.goal, kind: r.kind, text: r.text, runId: r.runId });

/** An id for an agent that registers without one. */
export function newAgentId(): string {
  return `agent_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
}

/** A goal created from its objective alone is titled by its first line. */
function titleOf(objective: string): string {
  const line = objective.trim().split("\n")[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
