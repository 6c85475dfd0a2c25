/**
 * The resilience experiments' hands on a running target: kill one
 * node (or the whole single-process target) with a signal, start it again on
 * the same port with the same data directory and the same storage, restart
 * every node, add a node to an elastic target, and the pids to sample per node.
 * Every operation works from the state file, so it also works on a target
 * started by another process.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { nodeSupport } from "@sfbench/core";
import { findTarget, TargetError, type BundledTarget } from "@sfbench/catalogue";
import { spawnBalancer, writeBackends } from "./run.ts";
import { startTargetPostgres, startTargetRedis, targetPostgresDir } from "./storage.ts";
import {
  baseEnv,
  freePort,
  isAlive,
  killGroup,
  nodeRuns,
  balancerRuns,
  nodesOf,
  postgresRuns,
  redisRuns,
  readState,
  spawnNode,
  descendants,
  waitGone,
  waitGroupGone,
  waitHealthy,
  writeState,
  type NodePlan,
  type RunningNode,
  type RunningTarget,
} from "./target-process.ts";

export interface NodeOpOptions {
  onProgress?: (message: string) => void;
  /** the CPUs what is started runs on (a run's target cores); default: the caller's */
  cpus?: string;
}

export interface KilledNode {
  index: number;
  pid: number;
  signal: NodeJS.Signals;
  /** epoch ms right before the signal was sent */
  at: number;
  /** epoch ms when the node's process was gone (undefined for a signal it survived within 10 s) */
  goneAt: number | undefined;
}

function stateOf(name: string): RunningTarget {
  const state = readState(name);
  if (!state) throw new TargetError(`target ${name} is not running; start it with: sfbench target up ${name}`);
  return state;
}

function nodeOf(state: RunningTarget, index: number): RunningNode {
  const nodes = nodesOf(state);
  const node = nodes[index];
  if (!Number.isInteger(index) || !node) throw new TargetError(`node: ${index} is not a node of ${state.name} (allowed: 0..${nodes.length - 1})`);
  return node;
}

const targetOf = (state: RunningTarget): BundledTarget => findTarget(state.name, state.targetsRoot);

/** A restarted node gets its own ports back and the nodes there are now (one added since its first start included). */
function planOf(state: RunningTarget, node: RunningNode): NodePlan {
  const nodes = nodesOf(state);
  return {
    index: node.index,
    port: node.port,
    ...(state.cluster ? { clusterPort: node.clusterPort!, nodes: nodes.length, peers: nodes.map((n) => n.clusterPort!) } : {}),
  };
}

/**
 * Sends `signal` (default SIGKILL: kill -9) to node `index`'s process group
 * and waits until it is gone. For a single-process target node 0 is the whole
 * target; its PostgreSQL and the shared services keep running (they are its
 * storage). The state file remembers the node as killed, so the target is
 * still found for restartNode / restartTarget / stopTarget.
 */
export async function killNode(name: string, index: number, signal: NodeJS.Signals = "SIGKILL"): Promise<KilledNode> {
  const state = stateOf(name);
  const node = nodeOf(state, index);
  if (!nodeRuns(node)) throw new TargetError(`node ${index} of ${name} (pid ${node.pid}) is not running`);
  state.killed = [...new Set([...(state.killed ?? []), index])];
  writeState(state);
  const at = Date.now();
  killGroup(node.pid, signal);
  // gone means every process of the node, not only its leader: until then its port may still accept and reset
  const gone = await waitGroupGone(node.pid, 10_000);
  return { index, pid: node.pid, signal, at, goneAt: gone ? Date.now() : undefined };
}

export interface KilledTarget {
  nodes: KilledNode[];
  /** the target's own PostgreSQL's postmaster, killed with its backends */
  postgres?: { pid: number; goneAt: number | undefined };
  /** the target's own Redis */
  redis?: { pid: number; goneAt: number | undefined };
  /** epoch ms right before the first signal */
  at: number;
}

/**
 * A crash of the whole system: `signal` (default SIGKILL) to every node, to
 * the target's own PostgreSQL (its postmaster's process group: the server and
 * its backends) and to its own Redis, which the cost sampler counts as the
 * target's too. Restart with restartTarget: PostgreSQL recovers from its WAL
 * and Redis from its append-only file on the kept data, then the nodes start
 * again. Its Kafka broker, the log a dataflow system replays, stays up, and
 * the shared services are not the target's.
 */
export async function killTarget(name: string, signal: NodeJS.Signals = "SIGKILL"): Promise<KilledTarget> {
  const state = stateOf(name);
  const nodes = nodesOf(state).filter(nodeRuns);
  if (!nodes.length && !(state.postgres && postgresRuns(state.postgres))) throw new TargetError(`target ${name} has no running process to kill`);
  writeState({ ...state, killed: nodesOf(state).map((n) => n.index) });
  const at = Date.now();
  for (const n of nodes) killGroup(n.pid, signal);
  // PostgreSQL's children make themselves group leaders (setsid): the postmaster and each of them, together
  const pgProcesses = state.postgres && postgresRuns(state.postgres) ? [state.postgres.pid, ...descendants(state.postgres.pid)] : [];
  for (const pid of pgProcesses) killGroup(pid, signal);
  const redisPid = state.redis && redisRuns(state.redis) ? state.redis.pid : undefined;
  if (redisPid) killGroup(redisPid, signal);
  const killed = await Promise.all(
    nodes.map(async (n): Promise<KilledNode> => ({
      index: n.index,
      pid: n.pid,
      signal,
      at,
      goneAt: (await waitGroupGone(n.pid, 10_000)) ? Date.now() : undefined,
    })),
  );
  const pgGone = (await Promise.all(pgProcesses.map((pid) => waitGone(pid, 10_000)))).every(Boolean);
  const postgres = state.postgres ? { pid: state.postgres.pid, goneAt: pgGone ? Date.now() : undefined } : undefined;
  const redisGone = redisPid === undefined || (await waitGone(redisPid, 10_000));
  const redis = state.redis ? { pid: state.redis.pid, goneAt: redisGone ? Date.now() : undefined } : undefined;
  return { nodes: killed, ...(postgres ? { postgres } : {}), ...(redis ? { redis } : {}), at };
}

async function startAgain(state: RunningTarget, target: BundledTarget, node: RunningNode, opts: NodeOpOptions): Promise<RunningNode> {
  const support = nodeSupport(target.manifest);
  const base = baseEnv(target, {
    trace: state.trace ?? false,
    ...(state.postgres ? { postgres: state.postgres } : {}),
    ...(state.kafka ? { kafka: state.kafka } : {}),
    ...(state.redis ? { redis: state.redis } : {}),
    ...(state.cores ? { cores: state.cores } : {}),
  });
  const s = spawnNode(target, base, planOf(state, node), { truncateLog: false, onProgress: opts.onProgress, cpus: opts.cpus ?? state.cores?.list });
  await waitHealthy(s.node.url + target.manifest.health, s.node.pid, s.exited, support.restartTimeoutSeconds * 1000, s.node.log);
  return s.node;
}

/** Replaces node `index` in the state file (read fresh: another node may have changed meanwhile). */
function record(name: string, node: RunningNode): RunningTarget {
  const state = stateOf(name);
  const nodes = nodesOf(state).map((n) => (n.index === node.index ? node : n));
  const killed = (state.killed ?? []).filter((i) => i !== node.index);
  const next: RunningTarget = { ...state, nodes, ...(killed.length ? { killed } : {}) };
  if (!killed.length) delete next.killed;
  writeState(next);
  return next;
}

/**
 * Starts node `index` again after it died (killNode, or a crash): the same
 * command, port, cluster port and data directory, the same DATABASE_URL;
 * resolves when its health route answers 200, within target.json
 * restart.timeoutSeconds (default local.startupTimeoutSeconds).
 */
export async function restartNode(name: string, index: number, opts: NodeOpOptions = {}): Promise<RunningNode> {
  const state = stateOf(name);
  const node = nodeOf(state, index);
  if (nodeRuns(node)) throw new TargetError(`node ${index} of ${name} (pid ${node.pid}) is still running; kill it first (killNode)`);
  const target = targetOf(state);
  await restartServers(state, target, opts);
  const started = await startAgain(stateOf(name), target, node, opts);
  record(name, started);
  return started;
}

/**
 * A killed postmaster's lock file names a pid that may still exist as a
 * zombie until something reaps it; PostgreSQL then refuses to start ("lock
 * file already exists"). Once that pid is dead it is removed, as after any crash.
 */
async function clearStaleLock(name: string): Promise<void> {
  const file = join(targetPostgresDir(name), "data", "postmaster.pid");
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || isAlive(pid)) return;
  const deadline = performance.now() + 2_000;
  const exists = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  while (exists() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (exists()) rmSync(file, { force: true });
}

/** The target's own servers that died with it, started again on their kept data (new ports: the nodes get the new URLs). */
async function restartServers(state: RunningTarget, target: BundledTarget, opts: NodeOpOptions): Promise<void> {
  if (state.postgres && !postgresRuns(state.postgres)) await restartPostgres(state, target, opts);
  if (state.redis && !redisRuns(state.redis)) {
    const cpus = opts.cpus ?? state.cores?.list;
    const redis = await startTargetRedis(state.name, target.manifest, { keepData: true, onProgress: opts.onProgress, ...(cpus ? { cpus } : {}) });
    writeState({ ...stateOf(state.name), redis });
  }
}

/** The target's own PostgreSQL died too: start it again on its kept data (a new port: the nodes get the new DATABASE_URL). */
async function restartPostgres(state: RunningTarget, target: BundledTarget, opts: NodeOpOptions): Promise<void> {
  await clearStaleLock(state.name);
  const cpus = opts.cpus ?? state.cores?.list;
  const postgres = await startTargetPostgres(state.name, target.manifest, { keepData: true, onProgress: opts.onProgress, ...(cpus ? { cpus } : {}) });
  writeState({ ...stateOf(state.name), postgres });
}

/**
 * Restarts the whole target with its data: SIGKILL to every node still
 * running, then every node again (node 0 first), its PostgreSQL again if it
 * died too, and the balancer if it is gone. Resolves with the new state once
 * every node and the target's URL answer health 200.
 */
export async function restartTarget(name: string, opts: NodeOpOptions = {}): Promise<RunningTarget> {
  const state = stateOf(name);
  const target = targetOf(state);
  const nodes = nodesOf(state);
  const alive = nodes.filter(nodeRuns);
  writeState({ ...state, killed: nodes.map((n) => n.index) });
  for (const n of alive) killGroup(n.pid, "SIGKILL");
  for (const n of alive) await waitGone(n.pid, 10_000);
  await restartServers(state, target, opts);
  const first = await startAgain(stateOf(name), target, nodes[0]!, opts);
  record(name, first);
  await Promise.all(nodes.slice(1).map(async (n) => record(name, await startAgain(stateOf(name), target, n, opts))));
  let now = stateOf(name);
  if (now.balancer && !balancerRuns(now.balancer)) {
    now = { ...now, balancer: await spawnBalancer(name, now.port, nodesOf(now)) };
    writeState(now);
  }
  const support = nodeSupport(target.manifest);
  await waitHealthy(now.url + target.manifest.health, now.pid, () => undefined, support.restartTimeoutSeconds * 1000, now.log);
  return now;
}

/**
 * Adds one node to a running target started with `nodes` whose manifest says
 * nodes.elastic: it starts with SFBENCH_NODES one more than before and every
 * cluster port so far in SFBENCH_CLUSTER_PEERS; once its health answers 200 the
 * balancer (routing "balancer") sends it its share. The other nodes are not
 * restarted. Resolves with the new node.
 */
export async function addNode(name: string, opts: NodeOpOptions = {}): Promise<RunningNode> {
  const state = stateOf(name);
  const target = targetOf(state);
  const support = nodeSupport(target.manifest);
  if (!target.manifest.nodes?.elastic) throw new TargetError(`${name} cannot take a node while it runs: target.json nodes.elastic is not true`);
  if (!state.cluster) throw new TargetError(`${name} was started as a single process; start it with a node count (startTarget nodes) to add nodes`);
  const nodes = nodesOf(state);
  if (nodes.length >= support.max) throw new TargetError(`nodes: ${name} already runs ${nodes.length} nodes, its maximum (target.json nodes.max)`);
  const index = nodes.length;
  const clusterPort = await freePort();
  const plan: NodePlan = { index, port: await freePort(), clusterPort, nodes: index + 1, peers: [...nodes.map((n) => n.clusterPort!), clusterPort] };
  const base = baseEnv(target, {
    trace: state.trace ?? false,
    ...(state.postgres ? { postgres: state.postgres } : {}),
    ...(state.kafka ? { kafka: state.kafka } : {}),
    ...(state.redis ? { redis: state.redis } : {}),
    ...(state.cores ? { cores: state.cores } : {}),
  });
  const s = spawnNode(target, base, plan, { truncateLog: true, onProgress: opts.onProgress, cpus: opts.cpus ?? state.cores?.list });
  writeState({ ...stateOf(name), nodes: [...nodes, s.node] });
  try {
    await waitHealthy(s.node.url + target.manifest.health, s.node.pid, s.exited, target.manifest.local!.startupTimeoutSeconds * 1000, s.node.log);
  } catch (e) {
    writeState({ ...stateOf(name), nodes });
    throw e;
  }
  const now = stateOf(name);
  if (now.balancer && balancerRuns(now.balancer)) {
    writeBackends(name, nodesOf(now));
    process.kill(now.balancer.pid, "SIGHUP");
  } else if (now.balancer) {
    // SIGHUP's default action ends a process: never send it to whatever took a dead balancer's pid
    writeState({ ...now, balancer: await spawnBalancer(name, now.port, nodesOf(now)) });
  }
  return s.node;
}

/** The pids of a running target, read from its state at call time (a restart changes them). */
export interface TargetPids {
  nodes: { index: number; pid: number; alive: boolean }[];
  postgres?: number;
  /** the target's own broker */
  kafka?: number;
  redis?: number;
  /** sfbench's, not the target's: not part of its cost */
  balancer?: number;
}

export function targetPids(name: string): TargetPids {
  const state = stateOf(name);
  return {
    nodes: nodesOf(state).map((n) => ({ index: n.index, pid: n.pid, alive: nodeRuns(n) })),
    ...(state.postgres ? { postgres: state.postgres.pid } : {}),
    ...(state.kafka ? { kafka: state.kafka.pid } : {}),
    ...(state.redis ? { redis: state.redis.pid } : {}),
    ...(state.balancer ? { balancer: state.balancer.pid } : {}),
  };
}

/** Every node's log, index order: with tracing on, a multi-node target's span lines are spread over them (a restarted node appends to its own). */
export function nodeLogs(name: string): string[] {
  return nodesOf(stateOf(name)).map((n) => n.log);
}
