// Who may do what: a member's role in a workspace, the permissions each procedure declares, and which roles
// (or an agent) hold each permission. The API's one authorization middleware reads these; so does the web app.
export const ROLES = [
  "admin", // members, invites, quotas, model settings, policies, agent tokens of others
  "approver", // answers gates
  "operator", // connects phones, runs goals, shares replays
  "viewer", // reads
] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  "read", // boards, goals, todos, runs, evidence, events
  "run", // goals, runs, todos, evidence, leases, turns
  "answer_gate",
  "admin",
  "share", // create and revoke links to a run's replay
  "operate", // a person at the controls: mints agent tokens for a tab or a worker, manages their own tokens
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Who holds a permission: member roles, and "agent" for a caller with an agent token. */
export const PERMISSION_HOLDERS: Record<Permission, readonly (Role | "agent")[]> = {
  read: ["viewer", "approver", "operator", "admin", "agent"],
  run: ["operator", "admin", "agent"],
  answer_gate: ["approver", "admin"],
  admin: ["admin"],
  share: ["operator", "admin"],
  operate: ["operator", "admin"],
};

/** The workspace's rule for who answers a gate; whoever opens the gate does not choose. */
export const GATE_ANSWER_ROLES: readonly Role[] = PERMISSION_HOLDERS.answer_gate.filter((h): h is Role => h !== "agent");

export function holds(holder: Role | "agent", permission: Permission): boolean {
  return PERMISSION_HOLDERS[permission].includes(holder);
}
