// Who may call each procedure: ONE table, reviewed procedure by procedure, which the one authorization middleware
// (trpc.ts) and every open event stream (events.ts) read through `refusal`. A procedure without a row is refused.
//
// A row names the permission the procedure needs (its roles: PERMISSION_HOLDERS in @phoneloop/state/domain — read:
// every role; run: operator, admin; answer_gate: approver, admin; share, operate: operator, admin; admin: admin) and
// which kinds of caller may call it at all:
//   - "member": a person, by their session cookie, with their role in the workspace;
//   - "agent": an agent token (a worker's, or a browser tab's), whose power is at most its issuer's current role:
//     it holds a permission only when agents hold it (read, run) AND the member who issued it does now.
// "anyone" rows take their credential as input (a share link's token): a share link reaches nothing else but
// GET /blobs of its run (blob-route.ts); a signed-out caller gets 401 everywhere else.
//
// People's work — answering, grading, deciding a goal's fate or bounds, editing or deleting what agents learned,
// anything of members, tokens, links, settings and rules — is "member" only: an agent token gets 403 there
// whatever its issuer's role.
import { holds, PERMISSION_HOLDERS, type Permission } from "@phoneloop/state";
import type { Principal } from "./auth/principal.ts";

export type CallerKind = "member" | "agent";
export type ProcedureAccess = { permission: Permission; callers: readonly CallerKind[] } | "anyone";

const PEOPLE: readonly CallerKind[] = ["member"];
const PEOPLE_AND_AGENTS: readonly CallerKind[] = ["member", "agent"];
const read = { permission: "read", callers: PEOPLE_AND_AGENTS } as const;
const agentsRun = { permission: "run", callers: PEOPLE_AND_AGENTS } as const;
const peopleRun = { permission: "run", callers: PEOPLE } as const;
const people = (permission: Permission) => ({ permission, callers: PEOPLE }) as const;

export const PROCEDURE_ACCESS = {
  "goal.get": read,
  "goal.runs": read,
  "goal.create": agentsRun, // a headless agent creates the goal it was started with
  "goal.update": peopleRun, // a goal's objective, bounds and acceptance are a person's to change
  "goal.pause": agentsRun, // an agent may stop work (safety), not restart it
  "goal.resume": peopleRun,
  "goal.cancel": peopleRun,
  "goal.complete": peopleRun, // a person completes a goal the attention queue proposes
  "todo.list": read,
  "todo.add": agentsRun,
  "todo.replan": agentsRun,
  "todo.claimNext": agentsRun,
  "todo.claim": agentsRun,
  "todo.start": agentsRun,
  "todo.validate": agentsRun,
  "todo.writeback": agentsRun,
  "todo.complete": agentsRun,
  "todo.fail": agentsRun,
  "todo.block": agentsRun,
  "todo.retry": agentsRun,
  "todo.reopen": agentsRun,
  "lease.renew": agentsRun,
  "lease.release": agentsRun,
  "lease.transfer": agentsRun,
  "gate.get": read,
  "gate.open": agentsRun,
  "gate.resolve": people("answer_gate"),
  "gate.expire": agentsRun,
  "gate.decideBatch": people("answer_gate"),
  "evidence.list": read,
  "evidence.byKey": read,
  "evidence.append": agentsRun,
  "quota.setPolicy": people("admin"),
  "quota.shouldRun": agentsRun,
  "quota.spend": agentsRun,
  "agent.register": agentsRun,
  "agent.list": read,
  "agent.heartbeat": agentsRun,
  "run.list": read,
  "run.replay": read,
  "run.steps": read,
  "run.grade": people("answer_gate"),
  "run.get": read,
  "run.start": agentsRun,
  "run.appendStep": agentsRun,
  "run.recordStep": agentsRun,
  "run.checkpoint": agentsRun,
  "run.resume": agentsRun,
  "run.finish": agentsRun,
  "run.takeOver": people("operate"), // a person at the controls takes the phone; an agent never takes one over
  "run.recordPersonStep": people("operate"),
  "run.handBack": people("operate"),
  "turn.route": agentsRun,
  "turn.result": agentsRun,
  "board.get": read,
  "board.attention": read,
  "board.history": read,
  "board.goals": read,
  "event.stream": read,
  "workspace.me": read,
  "member.list": read,
  "member.setRole": people("admin"),
  "member.remove": people("admin"),
  "agentToken.mintForTab": people("operate"),
  "agentToken.issue": people("operate"),
  "agentToken.list": people("operate"),
  "agentToken.listAll": people("admin"),
  "agentToken.revoke": people("operate"),
  "agentToken.revokeAny": people("admin"),
  "agentToken.reassign": people("admin"),
  "share.create": people("share"),
  "share.revoke": people("share"),
  "share.list": people("share"),
  "share.scan": people("share"),
  "share.open": "anyone",
  "share.steps": "anyone",
  "invite.create": people("admin"),
  "modelSettings.get": read,
  "modelSettings.status": read,
  "modelSettings.presets": read,
  "modelSettings.set": people("admin"),
  "modelSettings.test": people("admin"),
  "modelSettings.checkGrounding": people("admin"),
  "demoPhone.allowBrowser": people("operate"), // a person at the demo phone clicks Allow
  "policy.get": read,
  "policy.save": people("admin"),
  "approvalRule.list": people("admin"),
  "approvalRule.set": people("admin"),
  "wipLimits.get": read,
  "wipLimits.set": people("admin"),
  "notification.channels": read,
  "notification.endpoints": people("admin"),
  "notification.createEndpoint": people("admin"),
  "notification.deleteEndpoint": people("admin"),
  "notification.sendTest": people("admin"),
  "notification.deliveries": people("admin"),
  "notification.subscribePush": people("answer_gate"), // an approver's own device
  "notification.unsubscribePush": people("answer_gate"),
  "notification.pushStatus": people("answer_gate"),
  "suite.list": read,
  "suite.get": read,
  "suite.start": agentsRun, // the suite runner holds an agent token
  "suite.recordAttempt": agentsRun,
  "suite.finish": agentsRun,
  "skill.list": read,
  "skill.versions": read,
  "skill.save": agentsRun, // agents propose skills from their runs (a candidate, or a repair as the next version's candidate)
  "skill.recordUse": agentsRun, // a run's use; the core validates or retires from it, not the agent
  "skill.update": peopleRun, // a skill's steps, status and existence are people's: edit, disable, enable, approve, delete
  "skill.disable": peopleRun,
  "skill.enable": peopleRun,
  "skill.approve": peopleRun,
  "skill.delete": peopleRun,
  "shortcut.list": read,
  "shortcut.save": agentsRun,
  "shortcut.recordValidation": agentsRun,
  "lesson.list": read,
  "lesson.add": agentsRun, // the summarizer adds lessons; people edit and delete them
  "lesson.update": peopleRun,
  "lesson.delete": peopleRun,
  "task.list": read,
} as const satisfies Record<string, ProcedureAccess>;

export type ProcedurePath = keyof typeof PROCEDURE_ACCESS;

export const SIGN_IN =
  "Sign in first (the web app), or send an agent token as `Authorization: Bearer plt_…` " +
  "(the headless agent reads it from PHONELOOP_AGENT_TOKEN or --agent-token-file).";

export interface Refusal {
  code: "UNAUTHORIZED" | "FORBIDDEN";
  message: string;
}

/** Whether `principal` may call the procedure at `path` now; null when it may. */
export function refusal(principal: Principal, path: string): Refusal | null {
  const access = (PROCEDURE_ACCESS as Record<string, ProcedureAccess>)[path];
  if (!access) return { code: "FORBIDDEN", message: `The procedure ${path} has no row in the permissions table; the API refuses it.` };
  if (access === "anyone") return null;
  if (principal.kind === "anonymous") return { code: "UNAUTHORIZED", message: SIGN_IN };
  if (principal.kind === "share") return { code: "UNAUTHORIZED", message: `A share link opens only its run's replay. ${SIGN_IN}` };
  const { permission, callers } = access;
  const who = PERMISSION_HOLDERS[permission].filter((h) => h !== "agent").join(", ");
  if (principal.kind === "member") {
    if (holds(principal.role, permission)) return null;
    return { code: "FORBIDDEN", message: `This needs the "${permission}" permission (${who}); your role here is ${principal.role}. Ask an admin if you need it.` };
  }
  if (!callers.includes("agent")) {
    return { code: "FORBIDDEN", message: `This needs the "${permission}" permission of a person (${who}), not an agent: an agent token cannot call ${path}. Do it in the web app, signed in.` };
  }
  if (!holds("agent", permission)) return { code: "FORBIDDEN", message: `This needs the "${permission}" permission (${who}); an agent token cannot do this.` };
  if (!holds(principal.issuerRole, permission)) {
    return {
      code: "FORBIDDEN",
      message: `This needs the "${permission}" permission (${who}); this agent token acts for the member who issued it, whose role here is now ${principal.issuerRole}. Ask an admin to change that role, or to re-own the token (agentToken.reassign).`,
    };
  }
  return null;
}

/**
 * Whether a caller holds `permission` now: a member by their role, an agent token by agents' grant and its issuer's
 * current role. For the routes beside tRPC too (POST /blobs, the model proxy), so they decide as procedures do.
 */
export function holdsNow(principal: Principal, permission: Permission): boolean {
  if (principal.kind === "member") return holds(principal.role, permission);
  if (principal.kind === "agent") return holds("agent", permission) && holds(principal.issuerRole, permission);
  return false;
}

/** The permissions a caller holds now (workspace.me; the web app hides what they may not do). */
export function heldPermissions(principal: Principal, all: readonly Permission[]): Permission[] {
  return all.filter((p) => holdsNow(principal, p));
}
