// For tests that hold an operation to a number of statements: a client on the test database whose every statement
// sent to Postgres (BEGIN and COMMIT included, as the server counts them) is written down, in order, with its text.
import type pg from "pg";
import { createDb, poolOf, type Db } from "../db/client.ts";

export interface StatementLog {
  db: Db;
  /** Each statement's SQL text since the last `clear()`, in the order they were sent. */
  readonly statements: string[];
  clear(): void;
}

export function statementLog(url: string): StatementLog {
  const db = createDb(url, { max: 2 });
  const statements: string[] = [];
  poolOf(db)!.on("connect", (client: pg.PoolClient) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      statements.push(typeof first === "string" ? first : String((first as { text?: unknown }).text ?? ""));
      return query(...args);
    };
  });
  return {
    db,
    statements,
    clear: () => void statements.splice(0),
  };
}
