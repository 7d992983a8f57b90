"use client";
// The tab's runner (React context): at most one run at a time on the connected phone, its progress as the runtime
// reports it, and worker mode — the tab stands by, heartbeats, and takes a goal's next eligible todo as soon as a
// teammate creates it. Pages start runs through `useRunner()` (the demo entry too).
import { subscribeEvents, type EventSubscription } from "@phoneloop/client";
import type { AgentEvent } from "@phoneloop/agent";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useApi } from "../../lib/api.tsx";
import type { TabAgent } from "../../lib/runner.ts";
import { useConnectedPhone, usePhone } from "../device/phone-store.tsx";

/**
 * The agent runtime and its wiring (lib/runner.ts), loaded when the tab first runs or stands by: most pages never
 * run anything, and the runtime is the largest part of the app's scripts.
 */
const loadRunner = () => import("../../lib/runner.ts");

/** The runtime's per-run step cap: "step n of the budget". */
export const RUN_STEP_BUDGET = 200;

export interface RunProgress {
  goalId: string | null;
  runId: string | null;
  phase: "starting" | "waiting" | "running" | "stopping" | "ended" | "failed";
  /** Where the run is: planner, executor, summarizer. */
  node: string | null;
  todo: { id: string; title: string } | null;
  /** Executor steps taken in this tab (a resumed run counts on from its checkpoint's index). */
  step: number;
  budget: number;
  startedAt: number;
  endedAt: number | null;
  tokens: number;
  microUsd: number;
  lastAction: string | null;
  gate: { gateId: string; question: string } | null;
  /** A closed tab's lease on the run's todo, until it expires. */
  waitingFor: { holder: string; until: string } | null;
  outcome: { status: string; endReason: string; reason: string } | null;
  error: string | null;
  resumed: boolean;
  /** Started by worker mode rather than by a person's click. */
  byWorker: boolean;
}

export interface Runner {
  progress: RunProgress | null;
  /** A run is going in this tab (starting, waiting for a lease, running or stopping). */
  busy: boolean;
  /** Starts a run on the goal with the connected phone; rejects when no phone is connected or a run is going. */
  startRun(goalId: string): Promise<void>;
  /** Resumes an interrupted run, or one a closed tab left (after its lease expires). */
  resumeRun(runId: string): Promise<void>;
  /** Graceful stop: the run is summarised, its lease released. */
  cancelRun(): void;
  standBy: boolean;
  setStandBy(on: boolean): void;
  /** When worker mode last told the API this tab is alive. */
  lastHeartbeat: number | null;
  agentId: string | null;
}

const RunnerContext = createContext<Runner | null>(null);

const HEARTBEAT_MS = 10_000;
/** How often a standing-by tab looks for work without an event (the stream wakes it sooner). */
const SCAN_MS = 15_000;
/** A goal whose run ended without finishing is left alone this long, so a stuck todo is not retried in a loop. */
const GOAL_COOLDOWN_MS = 60_000;

const isActive = (p: RunProgress | null) => p !== null && (p.phase === "starting" || p.phase === "waiting" || p.phase === "running" || p.phase === "stopping");

export function RunnerProvider({ children }: { children: ReactNode }) {
  const { client, apiUrl } = useApi();
  const phone = useConnectedPhone();
  const phones = usePhone();
  // Read at launch time: a caller that just connected the phone starts a run before the next render.
  const phoneNow = useRef(phones.connected);
  phoneNow.current = phones.connected;
  const [progress, setProgress] = useState<RunProgress | null>(null);
  const [standBy, setStandBy] = useState(false);
  const [lastHeartbeat, setLastHeartbeat] = useState<number | null>(null);
  const [agentId, setAgentId] = useState<string | null>(null);
  const stop = useRef<AbortController | null>(null);
  const active = useRef(false);
  const cooldown = useRef(new Map<string, number>());
  // The goal of the run in progress, for event handlers created before the run had one.
  const progressGoal = useRef<string | null>(null);
  progressGoal.current = progress?.goalId ?? null;

  const update = useCallback((patch: Partial<RunProgress> | ((p: RunProgress) => Partial<RunProgress>)) => {
    setProgress((p) => (p ? { ...p, ...(typeof patch === "function" ? patch(p) : patch) } : p));
  }, []);

  const launch = useCallback(
    async (target: { goalId: string } | { runId: string }, byWorker: boolean) => {
      const phone = phoneNow.current();
      if (!phone) throw new Error("Connect a phone first (Devices), then start the run.");
      if (active.current) throw new Error("This tab is already running a goal; stop it first or open another tab.");
      active.current = true;
      const controller = new AbortController();
      stop.current = controller;
      const titles = new Map<string, string>();
      setProgress({
        goalId: "goalId" in target ? target.goalId : null,
        runId: "runId" in target ? target.runId : null,
        phase: "starting",
        node: null,
        todo: null,
        step: 0,
        budget: RUN_STEP_BUDGET,
        startedAt: Date.now(),
        endedAt: null,
        tokens: 0,
        microUsd: 0,
        lastAction: null,
        gate: null,
        waitingFor: null,
        outcome: null,
        error: null,
        resumed: "runId" in target,
        byWorker,
      });
      let agent: TabAgent | null = null;
      try {
        const { runInTab, tabAgent } = await loadRunner();
        agent = await tabAgent(client, apiUrl);
        setAgentId(agent.agentId);
        const cp = agent.controlPlane;
        const onEvent = (e: AgentEvent) => {
          switch (e.type) {
            case "run":
              update({ runId: e.runId, goalId: e.goalId, phase: "running", waitingFor: null, resumed: e.resumed });
              break;
            case "node":
              update({ node: e.node });
              break;
            case "step": {
              update({ step: e.stepIndex + 1, lastAction: `${e.action} — ${e.outcome}`, gate: null });
              const title = titles.get(e.todoId);
              if (title) update({ todo: { id: e.todoId, title } });
              else
                void cp.listTodos(progressGoal.current ?? "").then(
                  (todos) => {
                    for (const t of todos) titles.set(t.id, t.title);
                    const t = titles.get(e.todoId);
                    if (t) update({ todo: { id: e.todoId, title: t } });
                  },
                  () => undefined,
                );
              break;
            }
            case "gate":
              update({ gate: { gateId: e.gateId, question: e.question } });
              break;
            case "gate_decision":
              update({ gate: null });
              break;
            case "end":
              update({ outcome: { status: e.status, endReason: e.endReason, reason: e.reason } });
              break;
          }
        };
        const out = await runInTab({
          apiUrl,
          agent,
          device: phone.device,
          deviceInfo: phone.info,
          ...target,
          signal: controller.signal,
          onEvent,
          onUsage: (u) => update((p) => ({ tokens: p.tokens + u.tokens, microUsd: p.microUsd + u.microUsd })),
          onWait: (w) => update({ phase: "waiting", waitingFor: w }),
        });
        update({ phase: "ended", endedAt: Date.now(), runId: out.runId, goalId: out.goalId, outcome: { status: out.status, endReason: out.endReason, reason: out.report?.conclusion ?? "" } });
        if (out.status !== "completed") cooldown.current.set(out.goalId, Date.now() + GOAL_COOLDOWN_MS);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        update((p) => {
          if (p.goalId) cooldown.current.set(p.goalId, Date.now() + GOAL_COOLDOWN_MS);
          return { phase: controller.signal.aborted ? "ended" : "failed", endedAt: Date.now(), error: controller.signal.aborted ? null : message };
        });
      } finally {
        active.current = false;
        stop.current = null;
      }
    },
    [client, apiUrl, update],
  );

  const startRun = useCallback((goalId: string) => launch({ goalId }, false), [launch]);
  const resumeRun = useCallback((runId: string) => launch({ runId }, false), [launch]);
  const cancelRun = useCallback(() => {
    if (!stop.current) return;
    stop.current.abort();
    update({ phase: "stopping" });
  }, [update]);

  // Worker mode: register, heartbeat, and take the next goal with an eligible todo whenever nothing runs here.
  useEffect(() => {
    if (!standBy || !phone) return;
    let closed = false;
    let stream: EventSubscription | null = null;
    let agent: TabAgent | null = null;
    let scanning = false;
    const scan = async () => {
      if (closed || scanning || active.current || !agent) return;
      scanning = true;
      try {
        const goal = await findEligibleGoal(agent, client, cooldown.current);
        if (goal && !closed && !active.current) void launch({ goalId: goal }, true);
      } catch {
        /* the next event or tick looks again */
      } finally {
        scanning = false;
      }
    };
    const beat = async () => {
      if (closed || !agent) return;
      try {
        await agent.controlPlane.heartbeatAgent(agent.agentId);
        setLastHeartbeat(Date.now());
      } catch {
        /* shown as an old heartbeat */
      }
    };
    void (async () => {
      const { tabAgent, tabRegistration } = await loadRunner();
      agent = await tabAgent(client, apiUrl);
      if (closed) return;
      setAgentId(agent.agentId);
      await agent.controlPlane.registerAgent(tabRegistration(agent, phone.info));
      await beat();
      stream = subscribeEvents(agent.client, {}, { onStarted: () => void scan(), onEvent: () => void scan() });
      void scan();
    })().catch(() => undefined);
    const beats = setInterval(() => void beat(), HEARTBEAT_MS);
    const scans = setInterval(() => void scan(), SCAN_MS);
    return () => {
      closed = true;
      clearInterval(beats);
      clearInterval(scans);
      stream?.unsubscribe();
    };
  }, [standBy, phone, client, apiUrl, launch]);

  const runner = useMemo<Runner>(
    () => ({ progress, busy: isActive(progress), startRun, resumeRun, cancelRun, standBy, setStandBy, lastHeartbeat, agentId }),
    [progress, startRun, resumeRun, cancelRun, standBy, lastHeartbeat, agentId],
  );
  return <RunnerContext.Provider value={runner}>{children}</RunnerContext.Provider>;
}

export function useRunner(): Runner {
  const runner = useContext(RunnerContext);
  if (!runner) throw new Error("useRunner outside <RunnerProvider>");
  return runner;
}

/**
 * An active goal whose next todo in order is pending and needs only a phone (what claimNext would give this tab).
 * The core decides for real when the run claims; this only avoids starting runs that would find nothing.
 */
async function findEligibleGoal(agent: TabAgent, session: ReturnType<typeof useApi>["client"], cooldown: Map<string, number>): Promise<string | null> {
  const listed: unknown = await session.board.goals.query({});
  const goals = (Array.isArray(listed) ? listed : ((listed as { items?: unknown[] }).items ?? [])) as { id: string; status: string; todos: Record<string, number> }[];
  const now = Date.now();
  for (const g of goals) {
    if (g.status !== "active" || (g.todos.pending ?? 0) === 0) continue;
    if ((cooldown.get(g.id) ?? 0) > now) continue;
    const todos = await agent.controlPlane.listTodos(g.id);
    const next = todos.find((t) => t.state !== "done" && t.state !== "superseded");
    if (next && next.state === "pending" && next.requiredCapabilities.every((c) => c === "phone")) return g.id;
  }
  return null;
}

/**
 * Starts a run of `goalId` on a phone in one call (the home page's demo entry uses it): the phone connected in this
 * tab, else the demo phone, connected first. Resolves once the run has started (its progress is in useRunner()).
 */
export function useRunOnPhone(): (goalId: string) => Promise<void> {
  const phones = usePhone();
  const runner = useRunner();
  const latest = useRef({ phones, runner });
  latest.current = { phones, runner };
  return useCallback(async (goalId: string) => {
    const { phones: p, runner: r } = latest.current;
    if (!p.connected()) {
      if (!p.demoPhoneUrl) throw new Error("No phone is connected and this installation runs no demo phone: connect a phone on the Devices page.");
      await p.connectDemo();
      if (!p.connected()) throw new Error("The demo phone could not be connected; the Devices page says why.");
    }
    if (r.busy) throw new Error("This tab is already running a goal; wait for it to end or cancel it first.");
    // The run goes on after this resolves; how it ends shows in useRunner().progress.
    void r.startRun(goalId).catch(() => undefined);
  }, []);
}
