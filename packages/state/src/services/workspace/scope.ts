// Every row a call names must be a row of the caller's workspace: a row of another workspace is "not found", the
// same answer as a row that does not exist (so ids of other workspaces reveal nothing). The API runs this on every
// procedure's input, before the operator; operators that list or create take the workspace themselves.
import { StateError } from "../../domain/errors.ts";
import { rawStatement, type DbOrTx } from "../operator.ts";

/**
 * The input fields that name a row, the row's word in a message, and two counts over the named ids (`$ids`): how
 * many are in the workspace (`$ws`) and how many exist anywhere. All the fields a call names are counted in one
 * statement (every request runs this, before its operator: one round trip, not two per field).
 */
const inGoalOf = (table: string, key = "id") => ({
  here: `SELECT count(*) FROM "${table}" x JOIN "Goal" g ON g."id" = x."goalId" WHERE x."${key}" = ANY($ids) AND g."workspaceId" = $ws`,
  anywhere: `SELECT count(*) FROM "${table}" WHERE "${key}" = ANY($ids)`,
});
const inWorkspaceOf = (table: string) => ({
  here: `SELECT count(*) FROM "${table}" WHERE "id" = ANY($ids) AND "workspaceId" = $ws`,
  anywhere: `SELECT count(*) FROM "${table}" WHERE "id" = ANY($ids)`,
});
// A blob's ownership ends (collectBlobs), so only its answer is read anew every time (`changes`); every other row
// stays in the workspace it was made in (no operator moves a row to another workspace, and ids are never reused).
const blob = {
  word: "Blob",
  changes: true,
  here: `SELECT count(*) FROM "WorkspaceBlob" WHERE "sha256" = ANY($ids) AND "workspaceId" = $ws`,
  anywhere: `SELECT count(*) FROM "Blob" WHERE "sha256" = ANY($ids)`,
};

const FIELDS = {
  goalId: { word: "Goal", ...inWorkspaceOf("Goal") },
  todoId: { word: "Todo", ...inGoalOf("Todo") },
  gateId: { word: "Gate", ...inGoalOf("Gate") },
  runId: { word: "Run", ...inGoalOf("Run") },
  agentId: { word: "Agent", ...inWorkspaceOf("Agent") },
  toAgentId: { word: "Agent", ...inWorkspaceOf("Agent") },
  leaseKey: {
    word: "Lease",
    here: `SELECT count(*) FROM "Lease" l JOIN "Todo" t ON t."id" = l."todoId" JOIN "Goal" g ON g."id" = t."goalId" WHERE l."leaseKey" = ANY($ids) AND g."workspaceId" = $ws`,
    anywhere: `SELECT count(*) FROM "Lease" WHERE "leaseKey" = ANY($ids)`,
  },
  evidenceIds: { word: "Evidence", ...inGoalOf("Evidence") },
  blobSha256: blob,
  sha256: blob,
  suiteRunId: { word: "Suite run", ...inWorkspaceOf("SuiteRun") },
  // A goal's policy is in the goal's workspace; an agent's, in the agent's.
  policyId: {
    word: "Quota policy",
    here: `SELECT count(*) FROM "QuotaPolicy" q WHERE q."id" = ANY($ids) AND (
             EXISTS (SELECT 1 FROM "Goal" g WHERE g."id" = q."goalId" AND g."workspaceId" = $ws)
          OR EXISTS (SELECT 1 FROM "Agent" a WHERE a."id" = q."agentId" AND a."workspaceId" = $ws))`,
    anywhere: `SELECT count(*) FROM "QuotaPolicy" WHERE "id" = ANY($ids)`,
  },
} satisfies Record<string, { word: string; here: string; anywhere: string }>;

export type ScopedField = keyof typeof FIELDS;
export const SCOPED_FIELDS = Object.keys(FIELDS) as ScopedField[];

/**
 * Ids already found in a workspace, per database client: such an answer never changes (see `changes` above), so an
 * agent's steps, which name the same run, todo, agent and lease on every call, are checked once per process instead
 * of once per request. Forgotten all at once past SETTLED_MAX entries.
 */
const settled = new WeakMap<object, Set<string>>();
const SETTLED_MAX = 100_000;
const settledKey = (field: ScopedField, workspaceId: string, id: string) => `${field}\u0000${workspaceId}\u0000${id}`;

/**
 * Throws NOT_FOUND unless every row the input names (by the fields above, at its top level) is in the workspace.
 * A name that exists nowhere passes: the operator then reports it missing in its own words.
 */
export async function scopeToWorkspace(db: DbOrTx, workspaceId: string, input: unknown): Promise<void> {
  if (!input || typeof input !== "object") return;
  let known = settled.get(db);
  if (!known) settled.set(db, (known = new Set()));
  const named: { field: ScopedField; value: unknown; ids: string[] }[] = [];
  for (const [field, value] of Object.entries(input as Record<string, unknown>)) {
    if (!(field in FIELDS) || value == null) continue;
    const ids = [...new Set((Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string"))];
    if (ids.length && !ids.every((id) => known.has(settledKey(field as ScopedField, workspaceId, id)))) named.push({ field: field as ScopedField, value, ids });
  }
  if (!named.length) return;
  const params: unknown[] = [workspaceId];
  const parts = named.map(({ field, ids }, k) => {
    params.push(ids);
    const bind = (sql: string) => sql.replaceAll("$ws", "$1").replaceAll("$ids", `$${params.length}::text[]`);
    return `SELECT ${k}::int AS "k", (${bind(FIELDS[field].here)})::int AS "here", (${bind(FIELDS[field].anywhere)})::int AS "anywhere"`;
  });
  const rows = await rawStatement<{ k: number; here: number; anywhere: number }>(db, parts.join(" UNION ALL "), params);
  for (const r of [...rows].sort((a, b) => a.k - b.k)) {
    const { field, value, ids } = named[r.k]!;
    if (r.here >= r.anywhere) {
      // Every id found here (not merely some missing everywhere): remembered, unless the answer can change.
      if (r.here === ids.length && !("changes" in FIELDS[field])) {
        if (known.size + ids.length > SETTLED_MAX) known.clear();
        for (const id of ids) known.add(settledKey(field, workspaceId, id));
      }
      continue;
    }
    throw new StateError("NOT_FOUND", `${FIELDS[field].word} ${ids.length === 1 ? ids[0] : `(one of ${ids.join(", ")})`} does not exist.`, { [field]: value });
  }
}
