// Every row a call names must be a row of the caller's workspace: a row of another workspace is "not found", the
// same answer as a row that does not exist (so ids of other workspaces reveal nothing). The API runs this on every
// procedure's input, before the operator; operators that list or create take the workspace themselves.
import { StateError } from "../../domain/errors.ts";
import type { DbOrTx } from "../operator.ts";

type Lookup = (db: DbOrTx, workspaceId: string, ids: string[]) => Promise<number>;

const inGoal = (workspaceId: string) => ({ goal: { workspaceId } });

/** The input fields that name a row, how to count that row in a workspace, and the row's word in a message. */
const FIELDS = {
  goalId: { word: "Goal", count: (db, ws, ids) => db.goal.count({ where: { id: { in: ids }, workspaceId: ws } }) },
  todoId: { word: "Todo", count: (db, ws, ids) => db.todo.count({ where: { id: { in: ids }, ...inGoal(ws) } }) },
  gateId: { word: "Gate", count: (db, ws, ids) => db.gate.count({ where: { id: { in: ids }, ...inGoal(ws) } }) },
  runId: { word: "Run", count: (db, ws, ids) => db.run.count({ where: { id: { in: ids }, ...inGoal(ws) } }) },
  agentId: { word: "Agent", count: (db, ws, ids) => db.agent.count({ where: { id: { in: ids }, workspaceId: ws } }) },
  toAgentId: { word: "Agent", count: (db, ws, ids) => db.agent.count({ where: { id: { in: ids }, workspaceId: ws } }) },
  leaseKey: { word: "Lease", count: (db, ws, ids) => db.lease.count({ where: { leaseKey: { in: ids }, todo: inGoal(ws) } }) },
  evidenceIds: { word: "Evidence", count: (db, ws, ids) => db.evidence.count({ where: { id: { in: ids }, ...inGoal(ws) } }) },
  blobSha256: { word: "Blob", count: (db, ws, ids) => db.workspaceBlob.count({ where: { sha256: { in: ids }, workspaceId: ws } }) },
  screenSha256: { word: "Blob", count: (db, ws, ids) => db.workspaceBlob.count({ where: { sha256: { in: ids }, workspaceId: ws } }) },
  sha256: { word: "Blob", count: (db, ws, ids) => db.workspaceBlob.count({ where: { sha256: { in: ids }, workspaceId: ws } }) },
  suiteRunId: { word: "Suite run", count: (db, ws, ids) => db.suiteRun.count({ where: { id: { in: ids }, workspaceId: ws } }) },
  policyId: {
    word: "Quota policy",
    count: async (db, ws, ids) =>
      db.quotaPolicy.count({ where: { id: { in: ids }, OR: [{ goal: { workspaceId: ws } }, { agentId: { in: await agentIdsOf(db, ws) } }] } }),
  },
} satisfies Record<string, { word: string; count: Lookup }>;

export type ScopedField = keyof typeof FIELDS;
export const SCOPED_FIELDS = Object.keys(FIELDS) as ScopedField[];

/**
 * Throws NOT_FOUND unless every row the input names (by the fields above, at its top level) is in the workspace.
 * A name that exists nowhere passes: the operator then reports it missing in its own words.
 */
export async function scopeToWorkspace(db: DbOrTx, workspaceId: string, input: unknown): Promise<void> {
  if (!input || typeof input !== "object") return;
  const named = Object.entries(input as Record<string, unknown>).filter(([k, v]) => k in FIELDS && v != null) as [ScopedField, unknown][];
  await Promise.all(
    named.map(async ([field, value]) => {
      const ids = [...new Set((Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string"))];
      if (!ids.length) return;
      const spec = FIELDS[field];
      const [here, anywhere] = await Promise.all([spec.count(db, workspaceId, ids), existing(db, field, ids)]);
      if (here < anywhere) {
        throw new StateError("NOT_FOUND", `${spec.word} ${ids.length === 1 ? ids[0] : `(one of ${ids.join(", ")})`} does not exist.`, { [field]: value });
      }
    }),
  );
}

/** How many of the named rows exist in any workspace. */
async function existing(db: DbOrTx, field: ScopedField, ids: string[]): Promise<number> {
  switch (field) {
    case "goalId":
      return db.goal.count({ where: { id: { in: ids } } });
    case "todoId":
      return db.todo.count({ where: { id: { in: ids } } });
    case "gateId":
      return db.gate.count({ where: { id: { in: ids } } });
    case "runId":
      return db.run.count({ where: { id: { in: ids } } });
    case "agentId":
    case "toAgentId":
      return db.agent.count({ where: { id: { in: ids } } });
    case "leaseKey":
      return db.lease.count({ where: { leaseKey: { in: ids } } });
    case "evidenceIds":
      return db.evidence.count({ where: { id: { in: ids } } });
    case "blobSha256":
    case "screenSha256":
    case "sha256":
      return db.blob.count({ where: { sha256: { in: ids } } });
    case "policyId":
      return db.quotaPolicy.count({ where: { id: { in: ids } } });
    case "suiteRunId":
      return db.suiteRun.count({ where: { id: { in: ids } } });
  }
}

async function agentIdsOf(db: DbOrTx, workspaceId: string): Promise<string[]> {
  return (await db.agent.findMany({ where: { workspaceId }, select: { id: true } })).map((a) => a.id);
}
