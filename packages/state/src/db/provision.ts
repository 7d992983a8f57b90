// The product's own database and role: a login role without superuser, CREATEDB or CREATEROLE that owns the
// product database and everything in it, so the API (and the migrations, run as this owner) can reach nothing
// else. Idempotent: run on every start; a database made earlier by the superuser is handed over to the role.
import pg from "pg";
import { readOrCreateSecret } from "./secret-file.ts";

export interface ProvisionInit {
  /** A superuser URL (any database on the server). */
  adminUrl: string;
  database: string;
  role: string;
  /** Where the role's password is kept (mode 0600), e.g. .data/postgres-app.password. */
  passwordFile: string;
}

/** Makes sure the role and database exist and the role owns the database's objects; returns the role's URL. */
export async function provisionProductDatabase(init: ProvisionInit): Promise<string> {
  const password = readOrCreateSecret(init.passwordFile);
  const admin = new pg.Client({ connectionString: withDatabase(init.adminUrl, "postgres") });
  await admin.connect();
  const role = ident(init.role);
  const database = ident(init.database);
  try {
    const exists = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [init.role]);
    const verb = exists.rowCount ? "ALTER" : "CREATE";
    await admin.query(`${verb} ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${literal(password)}`);
    const db = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [init.database]);
    if (db.rowCount === 0) await admin.query(`CREATE DATABASE ${database} OWNER ${role}`);
    else await admin.query(`ALTER DATABASE ${database} OWNER TO ${role}`);
  } finally {
    await admin.end();
  }
  await handOver(withDatabase(init.adminUrl, init.database), init.role);
  const url = new URL(withDatabase(init.adminUrl, init.database));
  url.username = init.role;
  url.password = password;
  return url.toString();
}

// Objects a superuser created in the database before (an install from before this role existed) move to the role.
async function handOver(url: string, roleName: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`ALTER SCHEMA public OWNER TO ${ident(roleName)}`);
    const owned = await c.query<{ sql: string }>(
      `SELECT format('ALTER %s %s OWNER TO %I', CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, c.oid::regclass, $1::text) AS sql
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND pg_get_userbyid(c.relowner) <> $1
          AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
       UNION ALL
       SELECT format('ALTER TYPE %s OWNER TO %I', t.oid::regtype, $1::text)
         FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd') AND pg_get_userbyid(t.typowner) <> $1
       UNION ALL
       SELECT format('ALTER FUNCTION %s OWNER TO %I', p.oid::regprocedure, $1::text)
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> $1`,
      [roleName],
    );
    for (const row of owned.rows) await c.query(row.sql);
  } finally {
    await c.end();
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`"${name}" is not a plain Postgres name (lower-case letters, digits, _).`);
  return `"${name}"`;
}

function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
