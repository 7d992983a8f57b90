// @phoneloop/state: the only code that changes PhoneLoop's state. Every operator is (db, input) → result in
// one transaction with one Event row; projections are read-only.
export { createDb, type Db } from "./db/client.ts";
export { applyMigrations, redact, MIGRATIONS_DIR } from "./db/migrate.ts";
export { startEmbeddedPostgres, type EmbeddedPostgresInit, type RunningPostgres } from "./db/embedded-postgres.ts";
export { StateError, StateErrorCode, isStateError } from "./domain/errors.ts";
