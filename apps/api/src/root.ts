// The one place routers are merged.
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { agentRouter } from "./routers/agent.ts";
import { agentTokenRouter } from "./routers/agent-token.ts";
import { boardRouter } from "./routers/board.ts";
import { eventRouter } from "./routers/event.ts";
import { evidenceRouter } from "./routers/evidence.ts";
import { gateRouter } from "./routers/gate.ts";
import { goalRouter } from "./routers/goal.ts";
import { leaseRouter } from "./routers/lease.ts";
import { inviteRouter } from "./routers/invite.ts";
import { memberRouter } from "./routers/member.ts";
import { modelSettingsRouter } from "./routers/model-settings.ts";
import { demoPhoneRouter } from "./routers/demo-phone.ts";
import { policyRouter } from "./routers/policy.ts";
import { approvalRuleRouter } from "./routers/approval-rule.ts";
import { wipLimitsRouter } from "./routers/wip-limits.ts";
import { notificationRouter } from "./routers/notification.ts";
import { quotaRouter } from "./routers/quota.ts";
import { runRouter } from "./routers/run.ts";
import { shareRouter } from "./routers/share.ts";
import { suiteRouter } from "./routers/suite.ts";
import { skillRouter } from "./routers/skill.ts";
import { shortcutRouter } from "./routers/shortcut.ts";
import { lessonRouter } from "./routers/lesson.ts";
import { taskRouter } from "./routers/task.ts";
import { todoRouter } from "./routers/todo.ts";
import { turnRouter } from "./routers/turn.ts";
import { workspaceRouter } from "./routers/workspace.ts";
import { createTRPCRouter } from "./trpc.ts";

export const appRouter = createTRPCRouter({
  goal: goalRouter,
  todo: todoRouter,
  lease: leaseRouter,
  gate: gateRouter,
  evidence: evidenceRouter,
  quota: quotaRouter,
  agent: agentRouter,
  run: runRouter,
  turn: turnRouter,
  board: boardRouter,
  event: eventRouter,
  workspace: workspaceRouter,
  member: memberRouter,
  agentToken: agentTokenRouter,
  share: shareRouter,
  invite: inviteRouter,
  modelSettings: modelSettingsRouter,
  demoPhone: demoPhoneRouter,
  policy: policyRouter,
  approvalRule: approvalRuleRouter,
  wipLimits: wipLimitsRouter,
  notification: notificationRouter,
  suite: suiteRouter,
  skill: skillRouter,
  shortcut: shortcutRouter,
  lesson: lessonRouter,
  task: taskRouter,
});

export type AppRouter = typeof appRouter;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
