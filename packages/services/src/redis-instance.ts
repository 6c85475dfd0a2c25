/**
 * A Redis of one run's own, for a target from an image that declares
 * `redis`: the installation's Redis is the worker's queue, never a target's.
 * It serves inside the run's network namespace (its pod's) on 127.0.0.1:6379,
 * with a password made for it alone, and sfbench reaches it through a Unix
 * socket (a file, which namespaces of the network do not hide). It runs as
 * the same unprivileged system user as a run's PostgreSQL, its processes in
 * the run's cost, and leaves with the run.
 *
 * Durable like a target's PostgreSQL when the manifest promises durability:
 * every write is in the append-only file and fsynced before Redis answers
 * (`appendfsync always`), as a durable commit is; otherwise no persistence.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chown, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { env, HOST } from "./env.ts";
import { postgresUser } from "./postgres-user.ts";
import { CommandError, isAlive, readPid, run, stopPid, tail, waitFor } from "./process.ts";
import { answersPing, ensureRedisServer } from "./redis.ts";

export interface RedisInstance {
  /** the server's process */
  pid: number;
  /** its port inside the run's namespace */
  port: number;
  /** what the target is given as REDIS_URL: the namespace's 127.0.0.1, with the password */
  url: string;
  dir: string;
  log: string;
}

export interface RedisInstanceOptions {
  /** the instance's directory (its `data/`, `redis.conf`, `redis.log`, `redis.pid`) */
  dir: string;
  /** `/proc/<pid>/ns/net` of the run's pod */
  netns: string;
  /** every write fsynced to its append-only file before the answer */
  durable: boolean;
  /** keep the data of an earlier start (a restart after a kill); default: start empty */
  keepData?: boolean;
  /** the CPUs the server runs on (taskset -c); default: the caller's */
  cpus?: string;
  onProgress?: (message: string) => void;
}

/** Redis's own port: the namespace has the whole range to itself. */
const PORT = 6379;

const filesOf = (dir: string) => ({
  data: path.join(dir, "data"),
  config: path.join(dir, "redis.conf"),
  log: path.join(dir, "redis.log"),
  pid: path.join(dir, "redis.pid"),
});

/** Where the socket lives: a short path of its own (a socket's path may have at most 107 bytes), only its user and root may enter. */
export const redisSocketDirOf = (dir: string) =>
  path.join("/tmp", `sfbench-redis-${createHash("sha256").update(path.resolve(dir)).digest("hex").slice(0, 16)}`);

/** Starts the run's Redis in `dir`, inside `netns`, and returns it once it answers PING with its password. Root only. */
export async function startRedisInstance(opts: RedisInstanceOptions): Promise<RedisInstance> {
  const dir = path.resolve(opts.dir);
  const f = filesOf(dir);
  await stopRedisInstance(dir);
  if (!opts.keepData) await rm(dir, { recursive: true, force: true });
  await mkdir(f.data, { recursive: true });
  const user = await postgresUser(dir, []);
  if (!user) throw new Error("a Redis inside a run's network namespace needs root (only root may enter the namespace)");
  const server = await ensureRedisServer({ pathEnv: env.PATH, isRoot: true, ...(opts.onProgress ? { progress: opts.onProgress } : {}) });
  const socketDir = redisSocketDirOf(dir);
  await rm(socketDir, { recursive: true, force: true });
  await mkdir(socketDir, { mode: 0o700 });
  await chown(socketDir, user.uid, user.gid);
  const socket = path.join(socketDir, "redis.sock");
  const password = randomBytes(24).toString("base64url");
  const q = (v: string) => JSON.stringify(v);
  const config = [
    `port ${PORT}`,
    `bind ${HOST}`,
    `unixsocket ${q(socket)}`,
    "unixsocketperm 700",
    "daemonize yes",
    `dir ${q(f.data)}`,
    `pidfile ${q(f.pid)}`,
    `logfile ${q(f.log)}`,
    'save ""',
    ...(opts.durable ? ["appendonly yes", "appendfsync always"] : ["appendonly no"]),
    `requirepass ${q(password)}`,
  ];
  // read by the server as its user; the password in a file only that user (and root) may read, never on a command line
  await writeFile(f.config, `${config.join("\n")}\n`, { mode: 0o600 });
  await chown(f.config, user.uid, user.gid);
  opts.onProgress?.(`starting on ${HOST}:${PORT} (${opts.durable ? "appendonly, fsync on every write" : "no persistence"})`);
  const entered = ["nsenter", `--net=${opts.netns}`, `--setgid=${user.gid}`, `--setuid=${user.uid}`, "--", server, f.config];
  const argv = opts.cpus ? ["taskset", "-c", opts.cpus, ...entered] : entered;
  try {
    await run(argv[0]!, argv.slice(1), { cwd: dir, timeoutMs: 30_000 });
    await waitFor(async () => ((await answersPing({ path: socket }, 1_000, password)) && existsSync(f.pid) ? true : undefined), {
      timeoutMs: 15_000,
      describe: async () => `the run's Redis does not answer PING on ${socket}; log ${f.log}:\n${await tail(f.log)}`,
    });
  } catch (error) {
    await stopRedisInstance(dir);
    const message = error instanceof CommandError ? error.message : (error as Error).message;
    throw new Error(`the run's Redis did not start: ${message}\nlog ${f.log}:\n${await tail(f.log)}`);
  }
  const pid = await readPid(f.pid);
  if (pid === undefined) throw new Error(`the run's Redis started but wrote no pid to ${f.pid}`);
  return { pid, port: PORT, url: `redis://:${encodeURIComponent(password)}@${HOST}:${PORT}`, dir, log: f.log };
}

/** Stops the Redis of `dir` and waits until it is gone; idempotent: returns whether one was running. */
export async function stopRedisInstance(dir: string): Promise<boolean> {
  const f = filesOf(path.resolve(dir));
  const pid = await readPid(f.pid);
  const running = pid !== undefined && isAlive(pid, "redis-server");
  if (running) await stopPid(pid, { command: "redis-server", timeoutMs: 15_000 });
  await rm(redisSocketDirOf(dir), { recursive: true, force: true });
  return running;
}
