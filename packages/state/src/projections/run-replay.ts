// A run as its replay shows it: the run's header (goal, agent, grade, totals, the summary report and the timeline
// of what happened outside executor steps: planner turns, handoffs, gate decisions) and its executor steps in pages,
// each joined with the evidence recorded at that step (screenshot, action, model calls, anomalies, gate decisions,
// validations). Screenshots are blob ids (GET /blobs/<sha256>), never bytes.
import { z } from "zod";
import type { Evidence } from "../generated/prisma/client.ts";
import { StateError } from "../domain/errors.ts";
import { parseInput } from "../domain/input.ts";
import { resumableStop, type RunStop } from "../domain/run.ts";
import { pageOf, PageFields, type Page } from "../domain/page.ts";
import { Id } from "../domain/schemas.ts";
import { MODEL_SKIPPED, readEvidenceData, readStepAction, readStepOutcome, type EvidenceData, type ListedElement, type ModelSkipped, type PolicyRecord, type StepAction } from "../domain/evidence.ts";
import type { EvidenceKind } from "../domain/vocabulary.ts";
import type { StepActor } from "../domain/gate.ts";
import type { DbOrTx } from "../services/operator.ts";
import { cursorOf, keysetPage, pageOrder } from "./page-query.ts";

export const RunReplayInput = z.object({ runId: Id });
export type RunReplayInput = z.input<typeof RunReplayInput>;

/** A page of a run's steps in order; the cursor is opaque. */
export const RunStepsInput = z.object({ runId: Id, ...PageFields });
export type RunStepsInput = z.input<typeof RunStepsInput>;

/** What one model call cost, from its model_call evidence (the API's proxy or a direct endpoint recorded it). */
export interface ReplayModelCall {
  role: string;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  microUsd: number;
  /** The endpoint reported no usage: the tokens are the tokenizer's count (evidence `estimated`). */
  estimated: boolean;
  latencyMs: number | null;
  /** The model's raw reply, when the call recorded it (direct endpoints). */
  reply: string | null;
  stepIndex: number | null;
  at: Date;
}

/** An evidence row as the replay shows it; its data read as its kind's (domain/evidence.ts), fields that no longer fit left out. */
export interface ReplayNote<K extends EvidenceKind = EvidenceKind> {
  id: string;
  kind: K;
  summary: string;
  data: Partial<EvidenceData<K>>;
  at: Date;
}

export interface ReplayScreen {
  sha256: string;
  mime: string | null;
  width: number | null;
  height: number | null;
  /** The elements the model was shown, boxes in 0–1000 (`password` marks a password field). */
  elements: ListedElement[];
  app: string | null;
}

export interface ReplayStep {
  id: string;
  index: number;
  node: string;
  /** Who took the step: the run's agent, or a member who took over the phone (a person step). */
  actor: StepActor;
  todoId: string | null;
  at: Date;
  /** The parsed action (its `thought` is the model's words), or the description of a reply that did not parse. */
  action: StepAction | null;
  outcome: string | null;
  app: string | null;
  /** Where a point action landed, in 0–1000 screen coordinates. */
  point: { x: number; y: number } | null;
  /** The policy decision recorded with the action (tier, rule, evidence, version). */
  policy: PolicyRecord | null;
  /** Milliseconds per phase: sensing the screen, the model, acting on the phone, and the core's writes. */
  timings: { sense: number; model: number; act: number; writes: number } | null;
  /** The executor model's raw replies for this step, the model's own words. */
  replies: string[];
  /** Why the action was taken without asking the model (`unchanged_after_wait`: a repeated wait), or null. */
  modelSkipped: ModelSkipped | null;
  screen: ReplayScreen | null;
  anomalies: ReplayNote<"anomaly">[];
  gateDecisions: ReplayNote<"gate_decision">[];
  validations: ReplayNote<"validation">[];
  modelCalls: ReplayModelCall[];
  tokens: number;
  microUsd: number;
}

export interface RunReplay {
  run: {
    id: string;
    goalId: string;
    todoId: string | null;
    agentId: string;
    status: string;
    summary: string | null;
    endReason: string | null;
    startedAt: Date;
    endedAt: Date | null;
    grade: string | null;
    gradeNote: string | null;
    gradedAt: Date | null;
    gradedBy: { id: string; name: string } | null;
    /** A resumable stop: why the run stopped and what removes the cause (null: running, interrupted or final). */
    stop: RunStop | null;
  };
  goal: { id: string; title: string; objective: string };
  agent: { id: string; name: string; kind: string };
  stepCount: number;
  totals: { modelCalls: number; inputTokens: number; outputTokens: number; microUsd: number };
  /** The model calls the run saved: its steps taken without asking the model (StepOutcome.modelSkipped, repeated waits). */
  modelCallsSaved: number;
  /** The summarizer's report (its summary evidence), or null while the run has none. */
  report: Partial<EvidenceData<"summary">> | null;
  /** Everything recorded outside executor steps, oldest first: planner turns, replans, handoffs, the summary. */
  timeline: ReplayNote[];
  /** The model calls outside executor steps (planner, summarizer). */
  modelCalls: ReplayModelCall[];
}

const TIMELINE_CAP = 1000;

/** A page of a workspace's runs, newest first (optionally one goal's); the cursor is opaque. */
export const RunListInput = z.object({ workspaceId: Id, goalId: Id.optional(), ...PageFields });
export type RunListInput = z.input<typeof RunListInput>;

export interface RunListItem {
  id: string;
  goalId: string;
  goalTitle: string;
  agentName: string;
  status: string;
  endReason: string | null;
  startedAt: Date;
  endedAt: Date | null;
  grade: string | null;
  stepCount: number;
}

const RUN_ORDER = pageOrder(["startedAt", "desc", Date], ["id", "asc", String]);

export async function runList(db: DbOrTx, raw: RunListInput): Promise<Page<RunListItem>> {
  const i = parseInput(RunListInput, raw, "runList");
  const rows = await db.run.findMany({
    ...keysetPage(RUN_ORDER, i, { goal: { workspaceId: i.workspaceId }, ...(i.goalId ? { goalId: i.goalId } : {}) }),
    select: {
      id: true, goalId: true, status: true, endReason: true, startedAt: true, endedAt: true, grade: true,
      goal: { select: { title: true } },
      agent: { select: { name: true } },
      _count: { select: { steps: true } },
    },
  });
  return pageOf(
    rows.map(({ goal, agent, _count, ...r }) => ({ ...r, goalTitle: goal.title, agentName: agent.name, stepCount: _count.steps })),
    i.limit,
    cursorOf(RUN_ORDER),
  );
}

export async function runReplay(db: DbOrTx, raw: RunReplayInput): Promise<RunReplay> {
  const i = parseInput(RunReplayInput, raw, "runReplay");
  const run = await db.run.findUnique({
    where: { id: i.runId },
    select: {
      id: true, goalId: true, todoId: true, agentId: true, status: true, summary: true, endReason: true, startedAt: true, endedAt: true,
      grade: true, gradeNote: true, gradedAt: true, gradedBy: true,
      goal: { select: { id: true, title: true, objective: true } },
      agent: { select: { id: true, name: true, kind: true } },
      _count: { select: { steps: true } },
    },
  });
  if (!run) throw new StateError("NOT_FOUND", `Run ${i.runId} does not exist.`, { runId: i.runId });
  const [outside, usage, grader, modelCallsSaved] = await Promise.all([
    db.evidence.findMany({ where: { runId: run.id, stepIndex: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: TIMELINE_CAP }),
    db.evidence.findMany({ where: { runId: run.id, kind: "model_call" }, select: { data: true } }),
    run.gradedBy ? db.authUser.findUnique({ where: { id: run.gradedBy }, select: { id: true, name: true } }) : null,
    db.step.count({ where: { runId: run.id, OR: MODEL_SKIPPED.map((reason) => ({ outcome: { path: ["modelSkipped"], equals: reason } })) } }),
  ]);
  const totals = { modelCalls: 0, inputTokens: 0, outputTokens: 0, microUsd: 0 };
  for (const e of usage) {
    const u = readEvidenceData("model_call", e.data);
    totals.modelCalls++;
    totals.inputTokens += u.inputTokens ?? 0;
    totals.outputTokens += u.outputTokens ?? 0;
    totals.microUsd += u.microUsd ?? 0;
  }
  const { goal, agent, _count, gradedBy, ...header } = run;
  return {
    run: { ...header, gradedBy: gradedBy ? (grader ?? { id: gradedBy, name: gradedBy }) : null, stop: resumableStop(header) },
    goal,
    agent,
    stepCount: _count.steps,
    totals,
    modelCallsSaved,
    report: reportOf(outside.filter((e) => e.kind === "summary").at(-1)),
    timeline: outside.filter((e) => e.kind !== "model_call").map((e) => note(e)),
    modelCalls: outside.filter((e) => e.kind === "model_call").map(modelCallOf),
  };
}

const STEP_ORDER = pageOrder(["index", "asc", Number], ["id", "asc", String]);

export async function runSteps(db: DbOrTx, raw: RunStepsInput): Promise<Page<ReplayStep>> {
  const i = parseInput(RunStepsInput, raw, "runSteps");
  const exists = await db.run.count({ where: { id: i.runId } });
  if (!exists) throw new StateError("NOT_FOUND", `Run ${i.runId} does not exist.`, { runId: i.runId });
  const rows = await db.step.findMany(keysetPage(STEP_ORDER, i, { runId: i.runId }));
  const page = pageOf(rows, i.limit, cursorOf(STEP_ORDER));
  if (!page.items.length) return { items: [], nextCursor: page.nextCursor };
  const from = page.items[0]!.index;
  const to = page.items[page.items.length - 1]!.index;
  const evidence = await db.evidence.findMany({
    where: { runId: i.runId, stepIndex: { gte: from, lte: to } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    include: { blob: { select: { mime: true } } },
  });
  const memberIds = [...new Set(page.items.flatMap((s) => (s.memberId ? [s.memberId] : [])))];
  const people = memberIds.length ? await db.authUser.findMany({ where: { id: { in: memberIds } }, select: { id: true, name: true } }) : [];
  const nameOf = new Map(people.map((p) => [p.id, p.name]));
  const byStep = new Map<number, typeof evidence>();
  for (const e of evidence) byStep.set(e.stepIndex!, [...(byStep.get(e.stepIndex!) ?? []), e]);

  const items = page.items.map((s): ReplayStep => {
    const at = byStep.get(s.index) ?? [];
    // The step's screenshot is its observation's blob: the one place it is kept.
    const observed = at.find((e) => e.kind === "observation" && e.blobSha256) ?? at.find((e) => e.kind === "observation");
    const acted = at.filter((e) => e.kind === "action").at(-1);
    const obsData = observed ? readEvidenceData("observation", observed.data) : {};
    const actData = acted ? readEvidenceData("action", acted.data) : {};
    const width = obsData.screen?.width || null;
    const height = obsData.screen?.height || null;
    const outcome = readStepOutcome(s.outcome);
    const px = actData.px;
    const calls = at.filter((e) => e.kind === "model_call").map(modelCallOf);
    const anomalyNotes = at.filter((e) => e.kind === "anomaly").map((e) => note(e, "anomaly"));
    // A detector's finding is in the step's anomalies even when no evidence row says more.
    for (const kind of s.anomalies) if (!anomalyNotes.some((n) => "kind" in n.data && n.data.kind === kind)) anomalyNotes.push({ id: `${s.id}:${kind}`, kind: "anomaly", summary: kind, data: { kind }, at: s.createdAt });
    return {
      id: s.id,
      index: s.index,
      node: s.node,
      actor: s.memberId ? { kind: "member", memberId: s.memberId, name: nameOf.get(s.memberId) ?? s.memberId } : { kind: "agent" },
      todoId: observed?.todoId ?? acted?.todoId ?? null,
      at: s.createdAt,
      action: readStepAction(s.action),
      outcome: outcome.outcome ?? null,
      app: outcome.app ?? obsData.app ?? null,
      point: width && height && px ? { x: Math.round((px.x * 1000) / width), y: Math.round((px.y * 1000) / height) } : null,
      policy: actData.policy ?? null,
      timings: timingsOf(outcome.timings),
      replies: outcome.replies ?? [],
      modelSkipped: outcome.modelSkipped ?? null,
      screen: observed?.blobSha256
        ? { sha256: observed.blobSha256, mime: observed.blob?.mime ?? null, width, height, elements: obsData.elements ?? [], app: obsData.app ?? null }
        : null,
      anomalies: anomalyNotes,
      gateDecisions: at.filter((e) => e.kind === "gate_decision").map((e) => note(e, "gate_decision")),
      validations: at.filter((e) => e.kind === "validation").map((e) => note(e, "validation")),
      modelCalls: calls,
      tokens: s.tokens || calls.reduce((a, c) => a + c.inputTokens + c.outputTokens, 0),
      microUsd: calls.reduce((a, c) => a + c.microUsd, 0),
    };
  });
  return { items, nextCursor: page.nextCursor };
}

function note<K extends EvidenceKind>(e: Evidence, kind: K = e.kind as K): ReplayNote<K> {
  return { id: e.id, kind, summary: e.summary, data: readEvidenceData(kind, e.data), at: e.createdAt };
}

function reportOf(e: Evidence | undefined): RunReplay["report"] {
  return e ? readEvidenceData("summary", e.data) : null;
}

function modelCallOf(e: Evidence): ReplayModelCall {
  const d = readEvidenceData("model_call", e.data);
  return {
    role: d.role ?? "model",
    model: d.model ?? null,
    inputTokens: d.inputTokens ?? 0,
    outputTokens: d.outputTokens ?? 0,
    microUsd: d.microUsd ?? 0,
    estimated: d.estimated === true,
    latencyMs: d.latencyMs ?? null,
    reply: d.reply ?? null,
    stepIndex: e.stepIndex,
    at: e.createdAt,
  };
}

/** The runner's phase timings folded into sense / model / act / writes (everything else the step spent). */
function timingsOf(t: Record<string, number> | undefined): ReplayStep["timings"] {
  const entries = Object.entries(t ?? {});
  if (!t || !entries.length) return null;
  const model = t.model ?? 0;
  const sense = t.sense ?? 0;
  const act = t.perform ?? 0;
  const all = entries.filter(([k]) => k !== "model").reduce((a, [, v]) => a + v, 0);
  const round = (n: number) => Math.max(0, Math.round(n));
  return { sense: round(sense), model: round(model), act: round(act), writes: round(all - sense - act - model) };
}
