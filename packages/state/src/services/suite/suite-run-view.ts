// How a suite run and its attempts look to callers (money as a number of micro-USD, never a BigInt).
import { storedSuiteSettings, type SuiteRunStatus, type SuiteSettings } from "../../domain/suite.ts";

export interface SuiteRunView {
  id: string;
  workspaceId: string;
  modelProfile: string;
  tasks: string;
  scenarios: string;
  seeds: number;
  trials: number;
  perturbations: string[];
  /** Null for suite runs recorded before settings were. */
  settings: SuiteSettings | null;
  status: SuiteRunStatus;
  createdBy: string;
  startedAt: Date;
  endedAt: Date | null;
}

export interface SuiteAttemptView {
  id: string;
  suiteRunId: string;
  taskId: string;
  seed: number;
  trial: number;
  /** The agent's run: its replay is /runs/<runId>. Null when the attempt failed before a run began. */
  runId: string | null;
  score: number;
  reason: string;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  durationMs: number;
  createdAt: Date;
}

export function suiteRunViewOf(row: Omit<SuiteRunView, "status" | "settings"> & { status: string; settings: unknown }): SuiteRunView {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    modelProfile: row.modelProfile,
    tasks: row.tasks,
    scenarios: row.scenarios,
    seeds: row.seeds,
    trials: row.trials,
    perturbations: row.perturbations,
    settings: storedSuiteSettings(row.settings),
    status: row.status as SuiteRunStatus,
    createdBy: row.createdBy,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
  };
}

export function suiteAttemptViewOf(row: Omit<SuiteAttemptView, "costMicroUsd"> & { costMicroUsd: bigint }): SuiteAttemptView {
  return {
    id: row.id,
    suiteRunId: row.suiteRunId,
    taskId: row.taskId,
    seed: row.seed,
    trial: row.trial,
    runId: row.runId,
    score: row.score,
    reason: row.reason,
    steps: row.steps,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    costMicroUsd: Number(row.costMicroUsd),
    durationMs: row.durationMs,
    createdAt: row.createdAt,
  };
}
