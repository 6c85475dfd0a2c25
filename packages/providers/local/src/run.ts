/**
 * Starting and stopping a bundled target as detached processes on loopback.
 * State lives in .sfbench/targets/<name>.json so that `target down` from
 * another process, and the worker's start-up sweep, can find it.
 *
 * A target starts as one process, as its manifest's local command; with
 * `nodes` (the scalability and resilience experiments) as that many nodes of
 * a target that declares them (target.json `nodes`), each in a process group
 * of its own, behind sfbench's balancer unless the target routes itself.
 * Killing, restarting and adding nodes: nodes.ts.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeSupport, tail } from "@sfbench/core";
import type { ServiceName } from "@sfbench/services";
import { ensureBuilt } from "./build.ts";
import { releaseClaim, takeClaim } from "./claim.ts";
import { findTarget, TargetBusyError, TargetError, type BundledTarget } from "@sfbench/catalogue";
import { startTargetKafka, startTargetPostgres, startTargetRedis, stopTargetKafka, stopTargetPostgres, stopTargetRedis } from "./storage.ts";
import {
  baseEnv,
  targetDataDir,
  freePort,
  balancerRuns,
  nodeRuns,
  killGroup,
  nodesOf,
  portAnswers,
  portFree,
  readState,
  spawnNode,
  stateDir,
  stateFile,
  waitGone,
  waitHealthy,
  writeState,
  type CoreShare,
  type NodePlan,
  type RunningBalancer,
  type RunningNode,
  type RunningTarget,
  type SpawnedNode,
} from "./target-process.ts";

export {
  coreEnv,
  descendants,
  freePort,
  groupMembers,
  isAlive,
  nodeRuns,
  nodeDataDir,
  portFree,
  targetDataDir,
  waitGone,
  type CoreShare,
  type RunningBalancer,
  type RunningNode,
  type RunningTarget,
} from "./target-process.ts";

/** A target started by this process: it can tell how the target ended. */
export interface StartedTarget extends RunningTarget {
  /** "code 1" or "signal SIGKILL" once node 0 has exited, else undefined */
  exited(): string | undefined;
}

export interface StartOptions {
  /**
   * The port the target (or its balancer) listens on: the manifest's by
   * default, as `sfbench target up` shows it; "free" takes one the system
   * hands out, for a run that only needs some port, so a benchmark never
   * fails because something else on this machine holds the manifest's.
   */
  port?: number | "free";
  /** the folder of target folders (default packages/targets) */
  targetsRoot?: string;
  trace?: boolean;
  /**
   * Keep the target's data directories (SFBENCH_DATA_DIR) and its PostgreSQL
   * data from an earlier start instead of starting from empty ones: a restart
   * after a crash.
   */
  keepData?: boolean;
  /** Start its logs empty (default: unless keepData; a target started on a restored snapshot keeps its data but not an earlier run's span lines) */
  truncateLogs?: boolean;
  /**
   * Start this many nodes of a target that declares `nodes` (1..nodes.max).
   * Absent: the plain single process. Given (also 1): every node gets
   * SFBENCH_NODE_* and, with routing "balancer", the balancer listens on the
   * target's port, so 1, 2, 4 nodes are measured through the same path.
   */
  nodes?: number;
  /**
   * Started for one benchmark run, stopped at its end: while another run
   * holds the target (claim.ts) this start waits for it instead of failing.
   */
  forRun?: boolean;
  /** the run's share of the machine: every process of the target (its own PostgreSQL and Kafka too) starts on these cores and is told how many */
  cores?: CoreShare;
  onProgress?: (message: string) => void;
}

const BALANCER_MAIN = fileURLToPath(new URL("./balancer-main.ts", import.meta.url));
const PACKAGE_DIR = dirname(dirname(BALANCER_MAIN));

/** The running instance of a target started by sfbench, if any (also while a killNode'd target waits for its restart). */
export function runningTarget(name: string): RunningTarget | undefined {
  const state = readState(name);
  if (!state) return undefined;
  // a pid reused by another program since the target died does not keep it "running" (a start would refuse for it)
  const alive = nodesOf(state).some(nodeRuns) || (state.balancer !== undefined && balancerRuns(state.balancer));
  if (alive || (state.killed?.length ?? 0) > 0) return state;
  rmSync(stateFile(name), { force: true });
  return undefined;
}

/** The node count asked for, checked against what the manifest declares. */
function nodeCount(target: BundledTarget, nodes: number | undefined): number {
  if (nodes === undefined) return 1;
  const max = nodeSupport(target.manifest).max;
  if (!Number.isInteger(nodes) || nodes < 1) throw new TargetError(`nodes: ${nodes} is not a node count (allowed: an integer from 1 to ${max})`);
  if (nodes > max) {
    throw new TargetError(
      target.manifest.nodes
        ? `nodes: ${target.name} supports at most ${max} nodes (target.json nodes.max)`
        : `nodes: ${target.name} is a single-process target (its target.json declares no nodes), so it runs as 1 node only`,
    );
  }
  return nodes;
}

export function balancerBackendsFile(name: string): string {
  return join(stateDir(), `${name}.balancer.json`);
}

export function writeBackends(name: string, nodes: RunningNode[]): string {
  const file = balancerBackendsFile(name);
  writeFileSync(file, JSON.stringify({ backends: nodes.map((n) => n.url) }));
  return file;
}

/** Starts the balancer process on `port` in front of `nodes`, and waits until it accepts connections. */
export async function spawnBalancer(name: string, port: number, nodes: RunningNode[]): Promise<RunningBalancer> {
  return spawnBalancerProcess(port, writeBackends(name, nodes), join(stateDir(), `${name}.balancer.log`));
}

/**
 * The balancer process on `port` for any caller that keeps its own state (the
 * container provider's nodes): its backends are read from `backendsFile`
 * ({"backends": [url, ...]}) at start and on SIGHUP, its output appended to
 * `log`. Resolves once it accepts connections; detached, in a process group of
 * its own (stop it with a signal to -pid).
 */
export async function spawnBalancerProcess(port: number, backendsFile: string, log: string): Promise<RunningBalancer> {
  const fd = openSync(log, "a");
  const child = spawn(process.execPath, ["--import", "tsx", BALANCER_MAIN, "--port", String(port), "--backends-file", backendsFile], {
    cwd: PACKAGE_DIR,
    detached: true,
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  let exited: string | undefined;
  child.on("exit", (code, signal) => (exited = code !== null ? `code ${code}` : `signal ${signal}`));
  if (!child.pid) throw new TargetError("could not start the balancer");
  child.unref();
  const deadline = performance.now() + 30_000;
  // connect, not bind: a probe that binds the port could take it from the balancer's own listen
  while (!(await portAnswers(port))) {
    if (exited !== undefined) throw new TargetError(`the balancer exited with ${exited}; last log lines:\n${tail(log)}`);
    if (performance.now() > deadline) {
      killGroup(child.pid, "SIGKILL");
      throw new TargetError(`the balancer did not listen on 127.0.0.1:${port} within 30 s; last log lines:\n${tail(log)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { pid: child.pid, port, log, backendsFile };
}

/** Removes every node's data directory (not the target's PostgreSQL: storage.ts owns that). */
function removeDataDirs(name: string): void {
  rmSync(targetDataDir(name), { recursive: true, force: true });
  const dir = join(stateDir(), name);
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) if (/^node-\d+$/.test(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
}

/** Starts a bundled target with the services it needs and waits for its health route. */
export async function startTarget(name: string, opts: StartOptions = {}): Promise<StartedTarget> {
  const target = findTarget(name, opts.targetsRoot);
  const count = nodeCount(target, opts.nodes);
  await takeClaim(name, { purpose: opts.forRun ? "run" : "up", running: () => runningTarget(name), onProgress: opts.onProgress });
  try {
    return await startClaimed(target, count, opts);
  } catch (e) {
    releaseClaim(name);
    throw e;
  }
}

async function startClaimed(target: BundledTarget, count: number, opts: StartOptions): Promise<StartedTarget> {
  const { name, manifest } = target;
  const cluster = opts.nodes !== undefined;
  const balanced = cluster && nodeSupport(manifest).routing === "balancer";
  const port = opts.port === "free" ? await freePort() : (opts.port ?? manifest.port);
  if (!(await portFree(port))) throw new TargetBusyError(`port ${port} on 127.0.0.1 is in use; choose another with --port`);

  if (manifest.build) await ensureBuilt(name, { targetsRoot: opts.targetsRoot, onProgress: opts.onProgress });
  if (!opts.keepData) removeDataDirs(name);
  const services = manifest.services as ServiceName[];
  // every service a target declares is a server of its own (storage.ts): the shared ones are sfbench's
  const cpus = opts.cores ? { cpus: opts.cores.list } : {};
  const own = { keepData: opts.keepData, onProgress: opts.onProgress, ...cpus };
  let postgres, kafka, redis;
  try {
    postgres = services.includes("postgres") ? await startTargetPostgres(name, manifest, own) : undefined;
    kafka = services.includes("kafka") ? await startTargetKafka(name, own) : undefined;
    redis = services.includes("redis") ? await startTargetRedis(name, manifest, own) : undefined;
  } catch (e) {
    await stopOwnServers(name);
    throw e;
  }
  const trace = opts.trace ?? false;
  const base = baseEnv(target, {
    trace,
    ...(postgres ? { postgres } : {}),
    ...(kafka ? { kafka } : {}),
    ...(redis ? { redis } : {}),
    ...(opts.cores ? { cores: opts.cores } : {}),
  });

  const plans: NodePlan[] = [];
  for (let index = 0; index < count; index++) {
    plans.push({ index, port: balanced || index > 0 ? await freePort() : port, ...(cluster ? { clusterPort: await freePort(), nodes: count } : {}) });
  }
  if (cluster) for (const p of plans) p.peers = plans.map((q) => q.clusterPort!);

  const spawned: SpawnedNode[] = [];
  const state: RunningTarget = {
    name,
    pid: 0,
    port,
    url: `http://127.0.0.1:${port}`,
    log: "",
    startedAt: new Date().toISOString(),
    ...(postgres ? { postgres } : {}),
    ...(kafka ? { kafka } : {}),
    ...(redis ? { redis } : {}),
    nodes: [],
    ...(cluster ? { cluster: true } : {}),
    trace,
    ...(opts.targetsRoot ? { targetsRoot: opts.targetsRoot } : {}),
    ...(opts.cores ? { cores: opts.cores } : {}),
  };
  const timeoutMs = manifest.local!.startupTimeoutSeconds * 1000;
  try {
    const launch = (plan: NodePlan) => {
      const s = spawnNode(target, base, plan, { truncateLog: opts.truncateLogs ?? !opts.keepData, onProgress: opts.onProgress, ...cpus });
      spawned.push(s);
      state.nodes!.push(s.node);
      writeState(state);
      return s;
    };
    const healthy = (s: SpawnedNode) => waitHealthy(s.node.url + manifest.health, s.node.pid, s.exited, timeoutMs, s.node.log);
    // node 0 first (members of a self-routed target join it), then the others together
    await healthy(launch(plans[0]!));
    await Promise.all(plans.slice(1).map((p) => healthy(launch(p))));
    if (balanced) {
      state.balancer = await spawnBalancer(name, port, state.nodes!);
      writeState(state);
      await waitHealthy(state.url + manifest.health, state.balancer.pid, () => undefined, timeoutMs, state.balancer.log);
    }
  } catch (e) {
    for (const s of spawned) killGroup(s.node.pid, "SIGKILL");
    if (state.balancer) killGroup(state.balancer.pid, "SIGKILL");
    rmSync(stateFile(name), { force: true });
    await stopOwnServers(name);
    throw e;
  }
  writeState(state);
  const saved = readState(name)!;
  return { ...saved, exited: () => spawned[0]!.exited() };
}

/** Stops the target's own servers (PostgreSQL, Kafka, Redis) that run; returns whether any did. */
async function stopOwnServers(name: string): Promise<boolean> {
  const stopped = [await stopTargetPostgres(name), await stopTargetKafka(name), await stopTargetRedis(name)];
  return stopped.some(Boolean);
}

/**
 * Stops a target started by startTarget (SIGTERM to every node's process
 * group and the balancer, SIGKILL after 10 s), then its own PostgreSQL,
 * Kafka and Redis, also when the target had died already. Idempotent.
 */
export async function stopTarget(name: string): Promise<boolean> {
  const state = runningTarget(name);
  if (!state) {
    const stopped = await stopOwnServers(name);
    releaseClaim(name);
    return stopped;
  }
  const pids = [
    ...nodesOf(state)
      .filter(nodeRuns)
      .map((n) => n.pid),
    ...(state.balancer && balancerRuns(state.balancer) ? [state.balancer.pid] : []),
  ];
  for (const pid of pids) killGroup(pid, "SIGTERM");
  await Promise.all(
    pids.map(async (pid) => {
      if (!(await waitGone(pid, 10_000))) killGroup(pid, "SIGKILL");
      await waitGone(pid, 10_000);
    }),
  );
  await stopOwnServers(name);
  rmSync(stateFile(name), { force: true });
  releaseClaim(name);
  return true;
}
