// The executor node (CONCEPTS §2, §3, §6): sense → (post-execute detectors, reminder) → model → parse →
// permission check → execute → waitForStable → sense … until complete / infeasible / blocked, scroll streak,
// step cap, quota stop, cancel, pause or device lost. State is checkpointed after every step.
import { ACTION_JSON_SCHEMA, describeAction, type Action } from "../actions/schema.ts";
import { parseAction } from "../actions/parse.ts";
import { detectAnomalies, detectCycle, detectRepetition, sampleOf, DETECTOR_LIMITS, type Anomaly } from "../detectors/index.ts";
import { formatHistory } from "../memory/history.ts";
import { decidePermission, needsGate, recordApproval, type PermissionDecision } from "../policy/index.ts";
import { anomalyReminder, executorMessages } from "../prompts/executor.ts";
import { ControlPlaneConflict, type GateDecision, type ShouldRun } from "../ports.ts";
import { callModel, errorText, perform, retryDevice, sense } from "./effects.ts";
import { focusedNode, formatElements, listElements, nodeAt, resolveTarget } from "./observe.ts";
import { guard, type ExecutorReturn, type ExecutorState, type ExitReason, type RunContext, type RunState } from "./state.ts";

export type Checkpoint = (state: RunState) => Promise<void>;

/** Pure: which ShouldRun refusal ends the executor with which reason. */
export function exitForShouldRun(s: Extract<ShouldRun, { run: false }>): ExitReason {
  switch (s.reason) {
    case "exhausted":
      return "quota";
    case "paused":
      return "paused";
    case "throttled":
      return "throttled";
    case "gate_waiting":
      return "gate_waiting";
    case "cancelled":
      return "cancelled";
    default:
      return "lease_lost";
  }
}

/** Pure: the status the executor returns for an exit reason. */
export function statusForExit(reason: ExitReason): ExecutorReturn["status"] {
  if (reason === "complete" || reason === "answer") return "completed";
  if (reason === "scroll_streak" || reason === "step_cap" || reason === "run_step_cap" || reason === "infeasible") return "partial";
  return "blocked";
}

/** Pure: the reminder and exit implied by the anomalies after an action. */
export function decideAfterAnomalies(anomalies: Anomaly[], goal: string, todo: string): { reminder?: string; exit?: ExitReason } {
  if (anomalies.some((a) => a.kind === "scroll_streak")) return { exit: "scroll_streak" };
  const loops = anomalies.filter((a) => a.kind !== "scroll_streak");
  return loops.length ? { reminder: anomalyReminder(loops.map((a) => a.message), goal, todo) } : {};
}

function gateQuestion(a: Action, d: PermissionDecision, app: string, todo: string): string {
  const target = d.targetLabel ? ` on "${d.targetLabel.slice(0, 60)}"` : "";
  const what = describeAction(a).replace(/element "[^"]*"/, "the element").split(" ")[0];
  return `Allow the agent to ${what}${target} in ${app || "the current app"}? This is a ${d.tier === "high_risk" ? "high-risk" : "confirm-tier"} action (${d.kind}): ${d.reasons.join("; ")}. Todo: "${todo}".${a.intent ? ` The agent says it intends to: ${a.intent}.` : ""}`;
}

export async function runExecutor(ctx: RunContext, state: RunState, checkpoint: Checkpoint): Promise<ExecutorReturn> {
  const { device, controlPlane: cp, clock } = ctx.ports;
  const cfg = ctx.config;
  const ex = state.executor!;
  const lease = () => ({ leaseId: ex.lease.leaseId, epoch: ex.lease.epoch });
  const base = () => ({ goalId: state.goalId, runId: state.runId, todoId: ex.todoId, lease: lease() });
  let finalScreen: ExecutorReturn["finalScreen"] = null;
  let stepStarted = clock.monotonic();
  let modelMs = 0;
  let promptTokens = 0;
  let phases: Record<string, number> = {};
  let phaseAt = clock.monotonic();
  /** Time since the last mark, attributed to `name` (a per-step trace of where the overhead goes). */
  const mark = (name: string) => {
    const now = clock.monotonic();
    phases[name] = (phases[name] ?? 0) + (now - phaseAt);
    phaseAt = now;
  };

  const exit = (reason: ExitReason, summary: string): ExecutorReturn => ({
    todoId: ex.todoId,
    status: statusForExit(reason),
    reason,
    summary,
    outputs: { ...ex.outputs },
    answers: [...ex.answers],
    finalScreen: finalScreen ?? (ex.hashes.length ? { app: ex.lastApp, phash: ex.hashes.at(-1)!, ...(ex.lastObservationId ? { evidenceId: ex.lastObservationId } : {}) } : null),
    steps: ex.stepCount,
  });

  /** Ends a step: step record, turn result (validated writeback), then the spend, then the checkpoint. */
  const finishStep = async (stepIndex: number, action: Action | null, description: string, outcome: string, evidenceIds: string[], spend: { tokens: number; microUsd: number }) => {
    guard(ctx);
    mark("step");
    ex.steps.push({ index: stepIndex, action: description, outcome });
    await cp.appendStep({ runId: state.runId, index: stepIndex, todoId: ex.todoId, action: action ?? description, outcome, evidenceIds, at: clock.now() });
    await cp.recordTurnResult({ idempotencyKey: `${state.runId}:${stepIndex}:turn`, goalId: state.goalId, todoId: ex.todoId, lease: lease(), result: "validated_progress", summary: `${description} → ${outcome}`, evidenceIds });
    await cp.spend(`${state.runId}:${stepIndex}:spend`, { agentId: state.agentId, goalId: state.goalId, steps: 1, tokens: spend.tokens, microUsd: spend.microUsd });
    ex.stepCount++;
    state.stepIndex = Math.max(state.stepIndex, stepIndex + 1);
    state.totals.steps++;
    delete ex.inFlight;
    await checkpoint(state);
    mark("writeback");
    ctx.onEvent?.({ type: "step", stepIndex, todoId: ex.todoId, action: description, outcome, promptTokens, overheadMs: clock.monotonic() - stepStarted - modelMs, modelMs, phases });
  };

  // Resumed after a hard stop in the middle of an action: its outcome is unknown, so it is not repeated.
  if (ex.inFlight) {
    const f = ex.inFlight;
    ex.samples.push(sampleOf(f.action, undefined));
    ex.sensedAfterAction = false;
    ex.feedback = `Your previous action (${f.description}) was interrupted by a worker restart; it may or may not have happened. Look at the screen before acting again.`;
    await finishStep(f.stepIndex, f.action, f.description, "interrupted (outcome unknown, not repeated)", [], { tokens: 0, microUsd: 0 });
  }

  for (;;) {
    guard(ctx);
    const stepIndex = state.stepIndex;
    stepStarted = clock.monotonic();
    phaseAt = stepStarted;
    phases = {};
    modelMs = 0;
    promptTokens = 0;
    if (ctx.signal?.aborted) return exit("cancelled", "The run was cancelled by the user.");
    // With a gate of ours pending, "gate_waiting" is expected: we wait for that gate below.
    const sr = await cp.shouldRun(ex.pendingGate ? { agentId: state.agentId, goalId: state.goalId } : { agentId: state.agentId, goalId: state.goalId, todoId: ex.todoId });
    if (!sr.run) return exit(exitForShouldRun(sr), `Stopped before step ${stepIndex + 1}: ${sr.reason}${sr.detail ? ` (${sr.detail})` : ""}.`);
    if (ex.stepCount >= cfg.maxStepsPerTodo) return exit("step_cap", `Reached the cap of ${cfg.maxStepsPerTodo} steps for this todo.`);
    if (state.stepIndex >= cfg.maxStepsPerRun) return exit("run_step_cap", `Reached the run's iteration cap of ${cfg.maxStepsPerRun} steps.`);

    // Keep the lease: renew at half its life. A lost lease means another worker owns the todo now.
    if (ex.lease.expiresAt - clock.now() < cfg.leaseTtlMs / 2) {
      try {
        ex.lease = await cp.renewLease(lease(), cfg.leaseTtlMs);
      } catch (e) {
        if (e instanceof ControlPlaneConflict) return exit("lease_lost", `The lease on this todo was lost: ${e.message}`);
        throw e;
      }
    }

    // ── sense ──
    mark("control");
    const sensed = await sense(ctx, device, !ex.sensedAfterAction && ex.samples.length > 0);
    mark("sense");
    if (!sensed.ok) {
      if (sensed.lost) return exit("device_lost", `Device connection lost while sensing: ${sensed.message}`);
      return exit("device_lost", `The phone did not answer after ${cfg.senseRetries} attempts: ${sensed.message}`);
    }
    const { screenshot, tree, foreground } = sensed.value;
    const prepared = sensed.value.prepared;
    const app = foreground ? `${foreground.packageName}${foreground.activity ? `/${foreground.activity}` : ""}` : "unknown";
    ex.lastApp = foreground?.packageName ?? ex.lastApp;
    const elements = listElements(tree, screenshot.width, screenshot.height);
    ex.hashes.push(prepared.phash);
    if (ex.hashes.length > 12) ex.hashes.splice(0, ex.hashes.length - 12);
    const evidenceIds: string[] = [];
    const obs = await cp.appendEvidence({
      ...base(),
      idempotencyKey: `${state.runId}:${stepIndex}:observation:${ex.lease.epoch}`,
      kind: "observation",
      stepIndex,
      summary: `${app}, ${elements.length} elements`,
      data: { app, phash: prepared.phash, screen: { width: screenshot.width, height: screenshot.height }, elements: elements.map((e) => ({ i: e.index, text: e.text, id: e.resourceId, box: e.box })) },
      ...(cfg.storeScreenshots ? { blob: { bytes: prepared.forModel.bytes, mime: prepared.forModel.mime } } : {}),
    });
    ex.lastObservationId = obs.evidenceId;
    evidenceIds.push(obs.evidenceId);
    finalScreen = { app: ex.lastApp, phash: prepared.phash, evidenceId: obs.evidenceId };

    // ── post-execute detectors on the screen the last action produced ──
    if (!ex.sensedAfterAction && ex.samples.length) {
      ex.sensedAfterAction = true;
      const anomalies = detectAnomalies(ex.samples, ex.hashes, DETECTOR_LIMITS);
      for (const a of anomalies) {
        ctx.onEvent?.({ type: "anomaly", kind: a.kind, message: a.message });
        const ev = await cp.appendEvidence({ ...base(), idempotencyKey: `${state.runId}:${stepIndex}:anomaly:${a.kind}`, kind: "anomaly", stepIndex, summary: a.message, data: { kind: a.kind } });
        evidenceIds.push(ev.evidenceId);
        const last = ex.steps.at(-1);
        if (last) last.anomalies = [...(last.anomalies ?? []), a.kind];
      }
      const d = decideAfterAnomalies(anomalies, state.goal, ex.todoTitle);
      if (d.exit) {
        await checkpoint(state);
        return exit(d.exit, anomalies.find((a) => a.kind === "scroll_streak")!.message);
      }
      if (d.reminder) ex.reminder = d.reminder;
    }

    // ── a gate left open by a previous worker: wait for the same gate, do not ask again ──
    let action: Action | undefined;
    let gateResolved: { decision: GateDecision; pending: NonNullable<ExecutorState["pendingGate"]> } | undefined;
    const spendThisStep = { tokens: 0, microUsd: 0 };
    if (ex.pendingGate) {
      const pending = ex.pendingGate;
      const decision = await cp.waitForGate(pending.gateId, ctx.signal);
      gateResolved = { decision, pending };
      action = pending.action;
    } else {
      // ── model → parse (one repair round with the typed error) ──
      const messages = () =>
        executorMessages({
          goal: state.goal,
          todo: ex.todoTitle,
          inputs: ex.inputs,
          outputs: ex.outputsDeclared,
          history: formatHistory(ex.steps, cfg.verbatimSteps),
          ...(ex.reminder ? { reminder: ex.reminder } : {}),
          ...(ex.feedback ? { feedback: ex.feedback } : {}),
          app,
          screen: { width: screenshot.width, height: screenshot.height },
          elements: formatElements(elements),
          image: prepared.forModel,
        });
      let parsed: ReturnType<typeof parseAction> | undefined;
      mark("observe");
      for (let round = 0; round < 2; round++) {
        const r = await callModel(ctx, state, {
          role: "executor",
          messages: messages(),
          jsonSchema: { name: "phone_action", schema: ACTION_JSON_SCHEMA },
          key: `${state.runId}:${stepIndex}:${ex.lease.epoch}:${round}`,
          todoId: ex.todoId,
          lease: lease(),
          stepIndex,
        });
        if (!r.ok) {
          if (r.error.code === "aborted") return exit("cancelled", "The run was cancelled by the user.");
          return exit("model_failed", `The executor model failed: ${r.error.message}`);
        }
        modelMs += r.value.modelMs;
        promptTokens = Math.max(promptTokens, r.value.promptTokens);
        spendThisStep.tokens += r.value.response.usage.inputTokens + r.value.response.usage.outputTokens;
        spendThisStep.microUsd += r.value.response.usage.microUsd;
        evidenceIds.push(r.value.evidenceId);
        parsed = parseAction(r.value.response.text);
        delete ex.reminder;
        if (parsed.ok) {
          delete ex.feedback;
          break;
        }
        ex.feedback = `Your reply could not be used (${parsed.error.code}): ${parsed.error.message}`;
      }
      if (!parsed!.ok) {
        const e = parsed!.error;
        const ev = await cp.appendEvidence({ ...base(), idempotencyKey: `${state.runId}:${stepIndex}:parse_error`, kind: "validation", stepIndex, summary: `parse failed twice: ${e.code}`, data: { code: e.code, message: e.message, raw: e.raw } });
        evidenceIds.push(ev.evidenceId);
        await finishStep(stepIndex, null, "(unparseable reply)", `failed: ${e.code}`, evidenceIds, spendThisStep);
        continue;
      }
      action = parsed!.action;
    }
    const description = describeAction(action);

    // ── actions that need no device ──
    if (action.type === "status") {
      if (action.outputs) Object.assign(ex.outputs, action.outputs);
      const summary = action.summary ?? (action.status === "complete" ? "The executor reports the todo complete." : "The executor reports the todo infeasible.");
      await finishStep(stepIndex, action, description, action.status, evidenceIds, spendThisStep);
      return exit(action.status === "complete" ? "complete" : "infeasible", summary);
    }
    if (action.type === "answer") {
      ex.answers.push(action.text);
      if (action.outputs) Object.assign(ex.outputs, action.outputs);
      await finishStep(stepIndex, action, description, "answered", evidenceIds, spendThisStep);
      return exit("answer", action.text);
    }
    if (action.type === "use_skill") {
      ex.feedback = `No skill named "${action.skill}" is available in this session; use ordinary actions.`;
      await finishStep(stepIndex, action, description, "failed: unknown skill", evidenceIds, spendThisStep);
      continue;
    }

    // ── resolve the target ──
    let px: { x: number; y: number } | undefined;
    if ("x" in action || "element" in action) {
      const hasTarget = (action as { x?: number; element?: string }).x !== undefined || (action as { element?: string }).element !== undefined;
      if (hasTarget) {
        const r = resolveTarget(action as { x?: number; y?: number; element?: string }, elements, screenshot.width, screenshot.height);
        if (!r.ok) {
          ex.feedback = r.message;
          await finishStep(stepIndex, action, description, `failed: ${r.message}`, evidenceIds, spendThisStep);
          continue;
        }
        px = r.px;
      }
    }

    // ── permission checkpoint, outside the model ──
    if (!gateResolved) {
      const target = action.type === "keyboard_enter" ? focusedNode(tree) : px ? nodeAt(tree, px) : undefined;
      const decision =
        action.type === "ask_user"
          ? ({ tier: "confirm", kind: "question", reasons: ["the model asks the user"] } as PermissionDecision)
          : decidePermission(action, { ...(target ? { target } : {}), ...(foreground ? { packageName: foreground.packageName } : {}), ...(cfg.appRules ? { appRules: cfg.appRules } : {}) });
      const gated = action.type === "ask_user" || needsGate(decision, state.approvals);
      if (gated) {
        const question = action.type === "ask_user" ? action.question : gateQuestion(action, decision, ex.lastApp, ex.todoTitle);
        const options = action.type === "ask_user" ? (action.options?.length ? action.options : ["answer"]) : ["approve", "deny"];
        const { gateId } = await cp.openGate({
          idempotencyKey: `${state.runId}:${stepIndex}:gate`,
          goalId: state.goalId,
          todoId: ex.todoId,
          lease: lease(),
          question,
          options,
          evidenceIds: [obs.evidenceId],
          answerRoles: cfg.gateAnswerRoles,
        });
        ex.pendingGate = { gateId, stepIndex, action, kind: decision.kind, tier: action.type === "ask_user" ? "question" : decision.tier === "high_risk" ? "high_risk" : "confirm" };
        await cp.recordTurnResult({ idempotencyKey: `${state.runId}:${stepIndex}:gate_turn`, goalId: state.goalId, todoId: ex.todoId, lease: lease(), result: "user_action_required", summary: question, reason: `gate ${gateId}: ${question}`, evidenceIds: [obs.evidenceId] });
        await checkpoint(state);
        ctx.onEvent?.({ type: "gate", gateId, question });
        let d: GateDecision;
        try {
          d = await cp.waitForGate(gateId, ctx.signal);
        } catch (e) {
          if (ctx.signal?.aborted) return exit("cancelled", "The run was cancelled while waiting for a gate.");
          throw e;
        }
        gateResolved = { decision: d, pending: ex.pendingGate };
      }
    }
    if (gateResolved) {
      const { decision: d, pending } = gateResolved;
      guard(ctx);
      ctx.onEvent?.({ type: "gate_decision", gateId: pending.gateId, decision: d.decision });
      const ev = await cp.appendEvidence({
        ...base(),
        idempotencyKey: `${state.runId}:${pending.stepIndex}:gate_decision`,
        kind: "gate_decision",
        stepIndex: pending.stepIndex,
        summary: `${d.decision} for ${description}${d.rationale ? `: ${d.rationale}` : ""}`,
        data: { gateId: pending.gateId, kind: pending.kind, tier: pending.tier, decision: d.decision, answer: d.answer ?? null, rationale: d.rationale ?? null },
      });
      evidenceIds.push(ev.evidenceId);
      delete ex.pendingGate;
      if (pending.tier === "question") {
        ex.feedback = `The user answered your question "${(action as { question: string }).question}": ${d.answer ?? d.decision}${d.rationale ? ` (${d.rationale})` : ""}`;
        await finishStep(stepIndex, action, description, `user answered`, evidenceIds, spendThisStep);
        continue;
      }
      state.approvals = recordApproval(state.approvals, pending.kind, d.decision === "approve");
      if (d.decision !== "approve") {
        ex.feedback = `The user DENIED your action ${description} (${pending.kind})${d.rationale ? `: ${d.rationale}` : ""}. It was not performed. Do not try it again; find another way to reach the goal without it, or report status infeasible.`;
        ex.samples.push(sampleOf(action, px));
        // Nothing changed on the phone, so no screen detectors; asking for the same denied action again is still a loop.
        ex.sensedAfterAction = true;
        const loops = [detectRepetition(ex.samples), detectCycle(ex.samples)].filter((a): a is Anomaly => a !== null);
        for (const a of loops) {
          ctx.onEvent?.({ type: "anomaly", kind: a.kind, message: a.message });
          const aev = await cp.appendEvidence({ ...base(), idempotencyKey: `${state.runId}:${stepIndex}:anomaly:${a.kind}`, kind: "anomaly", stepIndex, summary: a.message, data: { kind: a.kind } });
          evidenceIds.push(aev.evidenceId);
        }
        if (loops.length) ex.reminder = anomalyReminder(loops.map((a) => a.message), state.goal, ex.todoTitle);
        await finishStep(stepIndex, action, description, "denied by the user, not performed", evidenceIds, spendThisStep);
        continue;
      }
    }

    // ── execute (write-ahead first, so a restart never repeats it) ──
    mark("model+parse+policy");
    ex.inFlight = { stepIndex, action, description };
    await checkpoint(state);
    const execStarted = clock.monotonic();
    let outcome: string;
    if (action.type === "wait") {
      await clock.sleep(action.ms ?? 1000, ctx.signal);
      outcome = "waited";
    } else if (action.type === "ask_user") {
      outcome = "asked";
    } else {
      const screen = { width: screenshot.width, height: screenshot.height };
      const done = await retryDevice(ctx, description, cfg.executeRetries, () => perform(device, action!, px, screen, cfg.deviceTimeoutMs));
      guard(ctx);
      if (!done.ok) {
        if (done.lost) {
          await cp.appendEvidence({ ...base(), idempotencyKey: `${state.runId}:${stepIndex}:action`, kind: "action", stepIndex, summary: `${description} failed: connection lost`, data: { action, px: px ?? null, error: done.message } });
          return exit("device_lost", `Device connection lost while performing ${description}: ${done.message}`);
        }
        ex.feedback = `The phone could not perform ${description}: ${done.message}. Try something else.`;
        ex.samples.push(sampleOf(action, px));
        ex.sensedAfterAction = false;
        await finishStep(stepIndex, action, description, `failed after ${done.attempts} attempts`, evidenceIds, spendThisStep);
        continue;
      }
      outcome = "ok";
      if (cfg.settle === "device") {
        const stable = await device.waitForStable({ timeoutMs: cfg.stable.timeoutMs, intervalMs: cfg.stable.intervalMs }).catch((e: unknown) => ({ stable: false, waitedMs: 0, frames: 0, error: errorText(e) }));
        if (!stable.stable) outcome = "ok (screen still changing)";
      }
    }
    guard(ctx);
    const ev = await cp.appendEvidence({
      ...base(),
      idempotencyKey: `${state.runId}:${stepIndex}:action`,
      kind: "action",
      stepIndex,
      summary: description,
      data: { action, px: px ?? null, app: ex.lastApp, execMs: Math.round(clock.monotonic() - execStarted) },
    });
    evidenceIds.push(ev.evidenceId);
    ex.samples.push(sampleOf(action, px));
    if (ex.samples.length > 20) ex.samples.splice(0, ex.samples.length - 20);
    ex.sensedAfterAction = false;
    mark("execute");
    await finishStep(stepIndex, action, description, outcome, evidenceIds, spendThisStep);
  }
}
