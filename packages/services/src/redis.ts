import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { env, HOST, paths, ports } from "./env.ts";
import { withLock } from "./lock.ts";
import { CommandError, findExecutable, livePid, portAnswers, run, stopPid, tail, waitFor } from "./process.ts";
import type { Progress, Service, ServiceStatus } from "./types.ts";
import { aptInstall } from "./apt.ts";

const dir = path.join(paths.home, "redis");
const pidFile = path.join(dir, "redis.pid");
const logFile = path.join(dir, "redis.log");
/** redis-server renames its process to "redis-server 127.0.0.1:PORT", so this identifies ours. */
const processName = `redis-server ${HOST}:${ports.redis}`;

const passwordFile = path.join(dir, "password");
const configFile = path.join(dir, "redis.conf");

/**
 * The shared Redis's password, made once and kept in `.sfbench/redis/password`
 * (0600): the server asks every client for it, so a process that only
 * reaches the port (another user's, a container that got out) cannot read or
 * rewrite the worker's queue. Made the first time anyone asks, server or
 * client, so both sides read the same file.
 */
export function redisPassword(): string {
  if (!existsSync(passwordFile)) {
    mkdirSync(dir, { recursive: true });
    // written whole under a name of its own, then linked into place: a reader never sees it half written
    const made = `${passwordFile}.${process.pid}`;
    writeFileSync(made, `${randomBytes(24).toString("base64url")}\n`, { mode: 0o600 });
    try {
      linkSync(made, passwordFile);
    } catch (e) {
      // another process made it first: its password is the one
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      unlinkSync(made);
    }
  }
  return readFileSync(passwordFile, "utf8").trim();
}

export function redisUrl(): string {
  return `redis://:${encodeURIComponent(redisPassword())}@${HOST}:${ports.redis}`;
}

/**
 * What a fresh TCP connection is told: `AUTH` with `password` (null: no
 * AUTH), then PING. True when the PING got +PONG.
 */
export function ping(port = ports.redis, timeoutMs = 1_000, password: string | null = redisPassword()): Promise<boolean> {
  return answersPing({ host: HOST, port }, timeoutMs, password);
}

/** As `ping`, to a server at `where`: a TCP address, or a Unix socket's path (a run's own Redis, in a network namespace sfbench is not in). */
export function answersPing(where: { host: string; port: number } | { path: string }, timeoutMs: number, password: string | null): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ ...where, timeout: timeoutMs });
    let reply = "";
    const expected = password === null ? 1 : 2;
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    // RESP bulk string: a password may hold any byte
    socket.once("connect", () => socket.write(`${password === null ? "" : `*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(password)}\r\n${password}\r\n`}PING\r\n`));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      const lines = reply.split("\r\n").slice(0, -1);
      if (lines.length >= expected) done(lines[expected - 1]!.startsWith("+PONG"));
    });
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}

export interface RedisServerLookup {
  pathEnv: string;
  isRoot: boolean;
  progress?: Progress;
}

/**
 * The path of redis-server: from PATH, else installed with apt-get when running as root
 * on a machine that has it; otherwise a MissingPrerequisiteError that says what to run.
 */
export async function ensureRedisServer({ pathEnv, isRoot, progress }: RedisServerLookup): Promise<string> {
  const find = () => findExecutable("redis-server", pathEnv) ?? (isRoot ? findExecutable("redis-server", "/usr/bin:/usr/sbin") : undefined);
  await aptInstall(["redis-server"], {
    present: () => find() !== undefined,
    why: "the shared Redis and the targets' own run redis-server",
    pathEnv,
    isRoot,
    progress,
  });
  return find()!;
}

async function status(): Promise<ServiceStatus> {
  const pid = await livePid(pidFile, processName);
  if (pid !== undefined && (await ping())) {
    return { name: "redis", running: true, url: redisUrl(), pid, detail: `redis on ${HOST}:${ports.redis}, log ${logFile}` };
  }
  const detail =
    pid === undefined && (await portAnswers(ports.redis))
      ? `${HOST}:${ports.redis} is in use by a process sfbench did not start; set SFBENCH_REDIS_PORT to a free port`
      : `not running (log ${logFile})`;
  return { name: "redis", running: false, pid, detail };
}

async function up(progress: Progress): Promise<ServiceStatus> {
  return withLock("redis", 600_000, async () => {
    const current = await status();
    // one started before passwords answers anybody: it is replaced by one that asks
    const open = current.running && (await ping(ports.redis, 1_000, null));
    if (current.running && !open) {
      progress("already running");
      return current;
    }
    if (open) progress("running without a password: starting it again with one");
    if (current.pid !== undefined) {
      // Ours, but hung (no PONG) or open to anybody (no password): replace it.
      await stopPid(current.pid, { command: processName, timeoutMs: 10_000 });
    } else if (await portAnswers(ports.redis)) {
      throw new Error(current.detail);
    }
    await rm(pidFile, { force: true });
    const redisServer = await ensureRedisServer({ pathEnv: env.PATH, isRoot: process.getuid?.() === 0, progress });
    await mkdir(dir, { recursive: true });
    progress(`starting on ${HOST}:${ports.redis}`);
    // Persistence is off: BullMQ queues for local runs are scratch data. The
    // password goes in a file only sfbench's user reads, not on a command line others can see.
    const q = (v: string) => JSON.stringify(v);
    const config = [
      `port ${ports.redis}`,
      `bind ${HOST}`,
      "daemonize yes",
      `dir ${q(dir)}`,
      `pidfile ${q(pidFile)}`,
      `logfile ${q(logFile)}`,
      'save ""',
      "appendonly no",
      `requirepass ${q(redisPassword())}`,
    ];
    await writeFile(configFile, `${config.join("\n")}\n`, { mode: 0o600 });
    const args = [configFile];
    await run(redisServer, args, { timeoutMs: 30_000 }).catch(async (error: CommandError) => {
      throw new Error(`redis-server did not start: ${error.message}\n${await tail(logFile)}`);
    });
    await waitFor(async () => ((await ping()) && existsSync(pidFile) ? true : undefined), {
      timeoutMs: 15_000,
      describe: async () => `redis-server does not answer PING on ${HOST}:${ports.redis}; log ${logFile}:\n${await tail(logFile)}`,
    });
    progress("ready");
    return status();
  });
}

async function down(): Promise<void> {
  await withLock("redis", 600_000, async () => {
    const pid = await livePid(pidFile, processName);
    if (pid !== undefined) await stopPid(pid, { command: processName, timeoutMs: 15_000 });
    await rm(pidFile, { force: true });
  });
}

export const redis: Service = { up, down, status };
