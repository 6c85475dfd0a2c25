/**
 * Starting and stopping a bundled target as a detached process on loopback.
 * State lives in .sfbench/targets/<name>.json so that `target down` from
 * another process, and the worker's start-up sweep, can find it.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { kafkaBrokers, paths, redisUrl, up, type ServiceName } from "@sfbench/services";
import { buildDir, ensureBuilt, expandArgs } from "./build.ts";
import { findTarget, TargetBusyError, TargetError } from "./catalog.ts";
import { startTargetPostgres, stopTargetPostgres, type TargetPostgres } from "./storage.ts";

export interface RunningTarget {
  name: string;
  pid: number;
  port: number;
  url: string;
  log: string;
  startedAt: string;
  /** the target's own PostgreSQL, when it declares postgres (storage.ts) */
  postgres?: TargetPostgres;
}

/** A target started by this process: it can tell how the target ended. */
export interface StartedTarget extends RunningTarget {
  /** "code 1" or "signal SIGKILL" once the target has exited, else undefined */
  exited(): string | undefined;
}

export interface StartOptions {
  port?: number;
  /** the folder of target folders (default packages/targets) */
  targetsRoot?: string;
  trace?: boolean;
  /**
   * Keep the target's data directory (SFBENCH_DATA_DIR) from an earlier start
   * instead of starting from an empty one: a restart after a crash.
   */
  keepData?: boolean;
  onProgress?: (message: string) => void;
}

const stateDir = () => join(paths.home, "targets");
const stateFile = (name: string) => join(stateDir(), `${name}.json`);
/** Where a target keeps what it persists itself (SFBENCH_DATA_DIR): e.g. a Restate or workerd data directory. */
export const targetDataDir = (name: string) => join(stateDir(), name, "data");

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The running instance of a target started by sfbench, if any. */
export function runningTarget(name: string): RunningTarget | undefined {
  if (!existsSync(stateFile(name))) return undefined;
  const state = JSON.parse(readFileSync(stateFile(name), "utf8")) as RunningTarget;
  if (isAlive(state.pid)) return state;
  rmSync(stateFile(name), { force: true });
  return undefined;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

async function waitHealthy(url: string, pid: number, exited: () => string | undefined, timeoutMs: number, log: string) {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < deadline) {
    const how = exited();
    if (how !== undefined) throw new TargetError(`target exited with ${how} during startup; last log lines:\n${tail(log)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = `answered ${res.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    /* already gone */
  }
  throw new TargetError(`target not healthy within ${timeoutMs / 1000} s (${url}: ${last}); last log lines:\n${tail(log)}`);
}

/** Starts a bundled target with the services it needs and waits for its health route. */
export async function startTarget(name: string, opts: StartOptions = {}): Promise<StartedTarget> {
  const { dir, manifest } = findTarget(name, opts.targetsRoot);
  const local = manifest.local!;
  const existing = runningTarget(name);
  if (existing) throw new TargetBusyError(`target ${name} is already running at ${existing.url} (pid ${existing.pid}); stop it with: sfbench target down ${name}`);
  const port = opts.port ?? manifest.port;
  if (!(await portFree(port))) throw new TargetBusyError(`port ${port} on 127.0.0.1 is in use; choose another with --port`);

  if (manifest.build) await ensureBuilt(name, { targetsRoot: opts.targetsRoot, onProgress: opts.onProgress });
  const dataDir = targetDataDir(name);
  if (!opts.keepData) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const env: Record<string, string> = {
    ...local.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    SFBENCH_TRACE: opts.trace ? "1" : "0",
    SFBENCH_DATA_DIR: dataDir,
    ...(manifest.build ? { SFBENCH_BUILD_DIR: buildDir(name) } : {}),
  };
  const services = manifest.services as ServiceName[];
  // postgres is the target's own server (storage.ts); redis and kafka are the shared ones
  const shared = services.filter((s) => s !== "postgres");
  if (shared.length) {
    opts.onProgress?.(`starting services: ${shared.join(", ")}`);
    await up(shared, { onProgress: (s, m) => opts.onProgress?.(`${s}: ${m}`) });
  }
  const postgres = services.includes("postgres") ? await startTargetPostgres(name, manifest, { keepData: opts.keepData, onProgress: opts.onProgress }) : undefined;
  if (postgres) env.DATABASE_URL = postgres.url;
  if (services.includes("redis")) env.REDIS_URL = redisUrl();
  if (services.includes("kafka")) env.KAFKA_BROKERS = kafkaBrokers().join(",");

  mkdirSync(stateDir(), { recursive: true });
  const log = join(stateDir(), `${name}.log`);
  const fd = openSync(log, "w");
  opts.onProgress?.(`starting ${name}: ${local.command.join(" ")}`);
  const argv = expandArgs(local.command, env);
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: dir,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  let exited: string | undefined;
  child.on("exit", (code, signal) => (exited = code !== null ? `code ${code}` : `signal ${signal}`));
  child.on("error", (e) => (exited = `an error: ${e.message}`));
  if (!child.pid) {
    await stopTargetPostgres(name);
    throw new TargetError(`could not start ${local.command.join(" ")}`);
  }
  const state: RunningTarget = { name, pid: child.pid, port, url: `http://127.0.0.1:${port}`, log, startedAt: new Date().toISOString(), ...(postgres ? { postgres } : {}) };
  writeFileSync(stateFile(name), JSON.stringify(state, null, 2));
  try {
    await waitHealthy(state.url + manifest.health, child.pid, () => exited, local.startupTimeoutSeconds * 1000, log);
  } catch (e) {
    rmSync(stateFile(name), { force: true });
    await stopTargetPostgres(name);
    throw e;
  }
  child.unref();
  return { ...state, exited: () => exited };
}

/**
 * Stops a target started by startTarget (SIGTERM to its process group, SIGKILL
 * after 10 s), then its own PostgreSQL, also when the target had died already.
 * Idempotent.
 */
export async function stopTarget(name: string): Promise<boolean> {
  const state = runningTarget(name);
  if (!state) return stopTargetPostgres(name);
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-state.pid, s);
    } catch {
      /* gone */
    }
  };
  signal("SIGTERM");
  const deadline = Date.now() + 10_000;
  while (isAlive(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(state.pid)) signal("SIGKILL");
  while (isAlive(state.pid)) await new Promise((r) => setTimeout(r, 20));
  await stopTargetPostgres(name);
  rmSync(stateFile(name), { force: true });
  return true;
}
