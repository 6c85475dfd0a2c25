/**
 * A Redis of one target's own, for a target that declares `redis`: the
 * installation's Redis is the worker's queue, never a target's. A run from an
 * image gets it inside the run's network namespace (its pod's) on
 * 127.0.0.1:6379; a target run as processes on a free port of the host's
 * loopback. Either way it has a password made for it alone, sfbench reaches
 * it through a Unix socket (a file, which namespaces of the network do not
 * hide), and as root it runs as the same unprivileged system user as a
 * target's PostgreSQL; its processes are in the target's cost, and it leaves
 * with the target.
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
import { freePort } from "@sfbench/core/ports";
import { CommandError, isAlive, readPid, run, stopPid, tail, waitFor } from "./process.ts";
import { answersPing, ensureRedisServer } from "./redis.ts";

export interface RedisInstance {
  /** the server's process */
  pid: number;
  /** its port: Redis's own inside a run's namespace, a free one on the host's loopback otherwise */
  port: number;
  /** what the target is given as REDIS_URL: 127.0.0.1 (the namespace's or the host's), with the password */
  url: string;
  dir: string;
  log: string;
  /** the server's version, as `redis-server --version` says it */
  version: string;
}

export interface RedisInstanceOptions {
  /** the instance's directory (its `data/`, `redis.conf`, `redis.log`, `redis.pid`) */
  dir: string;
  /** `/proc/<pid>/ns/net` of a run's pod: it serves there on Redis's own port (root only); absent, on a free port of the host's loopback */
  netns?: string;
  /** every write fsynced to its append-only file before the answer */
  durable: boolean;
  /** keep the data of an earlier start (a restart after a kill); default: start empty */
  keepData?: boolean;
  /** the CPUs the server runs on (taskset -c); default: the caller's */
  cpus?: string;
  onProgress?: (message: string) => void;
}

/** Redis's own port, in a run's namespace: the namespace has the whole range to itself. */
const NETNS_PORT = 6379;

const filesOf = (dir: string) => ({
  data: path.join(dir, "data"),
  config: path.join(dir, "redis.conf"),
  log: path.join(dir, "redis.log"),
  pid: path.join(dir, "redis.pid"),
});

/** Where the socket lives: a short path of its own (a socket's path may have at most 107 bytes), only its user and root may enter. */
export const redisSocketDirOf = (dir: string) =>
  path.join("/tmp", `sfbench-redis-${createHash("sha256").update(path.resolve(dir)).digest("hex").slice(0, 16)}`);

/** Starts the target's Redis in `dir` (inside `netns` when given: root only) and returns it once it answers PING with its password. */
export async function startRedisInstance(opts: RedisInstanceOptions): Promise<RedisInstance> {
  const dir = path.resolve(opts.dir);
  const f = filesOf(dir);
  await stopRedisInstance(dir);
  if (!opts.keepData) await rm(dir, { recursive: true, force: true });
  await mkdir(f.data, { recursive: true });
  const user = await postgresUser(dir, []);
  if (opts.netns && !user) throw new Error("a Redis inside a run's network namespace needs root (only root may enter the namespace)");
  const port = opts.netns ? NETNS_PORT : await freePort();
  const server = await ensureRedisServer({ pathEnv: env.PATH, isRoot: process.getuid?.() === 0, ...(opts.onProgress ? { progress: opts.onProgress } : {}) });
  const socketDir = redisSocketDirOf(dir);
  await rm(socketDir, { recursive: true, force: true });
  await mkdir(socketDir, { mode: 0o700 });
  if (user) await chown(socketDir, user.uid, user.gid);
  const socket = path.join(socketDir, "redis.sock");
  const password = randomBytes(24).toString("base64url");
  const q = (v: string) => JSON.stringify(v);
  const config = [
    `port ${port}`,
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
  if (user) await chown(f.config, user.uid, user.gid);
  opts.onProgress?.(
    `starting on ${HOST}:${port}${opts.netns ? " in the run's network" : ""} (${opts.durable ? "appendonly, fsync on every write" : "no persistence"})`,
  );
  // root enters the run's namespace and becomes the services' user there; outside one, the server is started as that user
  const entered = opts.netns
    ? ["nsenter", `--net=${opts.netns}`, `--setgid=${user!.gid}`, `--setuid=${user!.uid}`, "--", server, f.config]
    : [server, f.config];
  const argv = opts.cpus ? ["taskset", "-c", opts.cpus, ...entered] : entered;
  try {
    await run(argv[0]!, argv.slice(1), { cwd: dir, timeoutMs: 30_000, ...(user && !opts.netns ? { uid: user.uid, gid: user.gid } : {}) });
    await waitFor(async () => ((await answersPing({ path: socket }, 1_000, password)) && existsSync(f.pid) ? true : undefined), {
      timeoutMs: 15_000,
      describe: async () => `the target's Redis does not answer PING on ${socket}; log ${f.log}:\n${await tail(f.log)}`,
    });
  } catch (error) {
    await stopRedisInstance(dir);
    const message = error instanceof CommandError ? error.message : (error as Error).message;
    throw new Error(`the target's Redis did not start: ${message}\nlog ${f.log}:\n${await tail(f.log)}`);
  }
  const pid = await readPid(f.pid);
  if (pid === undefined) throw new Error(`the target's Redis started but wrote no pid to ${f.pid}`);
  const version = /v=(\S+)/.exec(await run(server, ["--version"], { timeoutMs: 10_000 }))?.[1] ?? "?";
  return { pid, port, version, url: `redis://:${encodeURIComponent(password)}@${HOST}:${port}`, dir, log: f.log };
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
