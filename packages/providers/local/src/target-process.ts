/**
 * What startTarget, the node operations (nodes.ts) and stopTarget share: the
 * state file of a running target, the environment of one node, spawning one
 * node in a process group of its own, and waiting for its health route.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exited, isAlive as processAlive, paths, statFields, threadsLeft } from "@sfbench/services";
import { buildDir, expandArgs } from "./build.ts";
import { TargetError, type BundledTarget } from "@sfbench/catalogue";
import { tail } from "@sfbench/core";
import type { TargetKafka, TargetPostgres, TargetRedis } from "./storage.ts";

export { ephemeralLow, freePort, portAnswers, portFree } from "@sfbench/services";

/** Whether a process runs: a zombie whose threads have all exited does not (one argument, for filter). */
export const isAlive = (pid: number): boolean => processAlive(pid);

/**
 * Whether a node's own process still runs, not merely something under its pid. Pids here go up to 32768 and a
 * busy machine reuses a dead node's within minutes; a signal to that pid's group would reach whatever holds it now
 * (another test lane's target, a user's program). Every node is started with SFBENCH_DATA_DIR naming its own data
 * directory, which no other process has: one whose environment names another is not the node. An environment that
 * cannot be read (no /proc, another user's process, a zombie's empty one) leaves kill(0)'s answer.
 */
export function nodeRuns(node: Pick<RunningNode, "pid" | "dataDir">): boolean {
  if (!isAlive(node.pid)) return false;
  let environ: string;
  try {
    environ = readFileSync(`/proc/${node.pid}/environ`, "latin1");
  } catch {
    return true;
  }
  return environ === "" || environ.split("\0").includes(`SFBENCH_DATA_DIR=${node.dataDir}`);
}

/** Whether a target's own PostgreSQL still runs under its pid: the postmaster's command line names its data directory. */
export const postgresRuns = (pg: { pid: number; dir: string }): boolean => processAlive(pg.pid, pg.dir);

/** Whether a target's own Redis still runs under its pid (Redis sets its command line to `redis-server <address>`). */
export const redisRuns = (redis: { pid: number; port: number }): boolean => processAlive(redis.pid, `redis-server 127.0.0.1:${redis.port}`);

/** Whether sfbench's balancer still runs under its pid: its command line names its own backends file. */
export const balancerRuns = (balancer: Pick<RunningBalancer, "pid" | "backendsFile">): boolean => processAlive(balancer.pid, balancer.backendsFile);

/** One process of a target. A single-process target is node 0 of 1. */
export interface RunningNode {
  index: number;
  /** leader of the node's process group: signals to -pid reach the node and its children */
  pid: number;
  /** the node's own HTTP port (its health route answers there) */
  port: number;
  url: string;
  /** the loopback port reserved for the node's cluster traffic (SFBENCH_CLUSTER_PORT); only for targets started with nodes */
  clusterPort?: number;
  /** SFBENCH_NODES the node was started with */
  nodes?: number;
  log: string;
  dataDir: string;
  startedAt: string;
}

/** sfbench's round-robin balancer in front of a multi-node target (routing "balancer"). */
export interface RunningBalancer {
  pid: number;
  port: number;
  log: string;
  backendsFile: string;
}

export interface RunningTarget {
  name: string;
  /** node 0's pid (for a single-process target: the target's) */
  pid: number;
  /** where clients send requests: the balancer's port, or node 0's */
  port: number;
  url: string;
  /** node 0's log */
  log: string;
  startedAt: string;
  /** the target's own PostgreSQL, when it declares postgres (storage.ts) */
  postgres?: TargetPostgres;
  /** the target's own Kafka broker, when it declares kafka (storage.ts) */
  kafka?: TargetKafka;
  /** the target's own Redis, when it declares redis (storage.ts) */
  redis?: TargetRedis;
  /** every node, in index order; written by every start since nodes exist (older state files lack it: see nodesOf) */
  nodes?: RunningNode[];
  balancer?: RunningBalancer;
  /** started with an explicit node count (StartOptions.nodes): nodes get SFBENCH_NODE_* and can be added */
  cluster?: boolean;
  /** nodes killed by killNode and not restarted yet: the target is down on purpose, not gone */
  killed?: number[];
  trace?: boolean;
  targetsRoot?: string;
  /** the cores the target was started on and told about (a run's share); its restarts and added nodes get the same */
  cores?: CoreShare;
}

/**
 * The cores a run gives a target: it starts on them (taskset) and is told how
 * many before it starts, so it sizes itself for them and not for the machine:
 * SFBENCH_CPUS for its own sizing (Restate's partitions, members, worker
 * pools), GOMAXPROCS for Go's scheduler, -XX:ActiveProcessorCount for the
 * JVM's ergonomics (GC threads, ForkJoin pools, Netty's event loops).
 */
export interface CoreShare {
  /** a CPU list for taskset ("1", "1-3") */
  list: string;
  count: number;
}

/** What a process started on `cores` is told about them; `inherited`: the JAVA_TOOL_OPTIONS it would otherwise get. */
export function coreEnv(cores: CoreShare | undefined, inherited: string | undefined): Record<string, string> {
  if (!cores) return {};
  const n = String(cores.count);
  return {
    SFBENCH_CPUS: n,
    GOMAXPROCS: n,
    JAVA_TOOL_OPTIONS: [inherited, `-XX:ActiveProcessorCount=${n}`].filter(Boolean).join(" "),
  };
}

export const stateDir = () => join(paths.home, "targets");
export const stateFile = (name: string) => join(stateDir(), `${name}.json`);
/** Where a target keeps what it persists itself (SFBENCH_DATA_DIR): e.g. a Restate or workerd data directory. */
export const targetDataDir = (name: string) => join(stateDir(), name, "data");
/** Node 0 keeps targetDataDir; node i > 0 has its own, kept across its restarts. */
export const nodeDataDir = (name: string, index: number) => (index === 0 ? targetDataDir(name) : join(stateDir(), name, `node-${index}`, "data"));
export const nodeLog = (name: string, index: number) => join(stateDir(), index === 0 ? `${name}.log` : `${name}.node-${index}.log`);

export function nodesOf(state: RunningTarget): RunningNode[] {
  return (
    state.nodes ?? [
      { index: 0, pid: state.pid, port: state.port, url: state.url, log: state.log, dataDir: targetDataDir(state.name), startedAt: state.startedAt },
    ]
  );
}

export function readState(name: string): RunningTarget | undefined {
  if (!existsSync(stateFile(name))) return undefined;
  return JSON.parse(readFileSync(stateFile(name), "utf8")) as RunningTarget;
}

export function writeState(state: RunningTarget): void {
  mkdirSync(stateDir(), { recursive: true });
  const node0 = nodesOf(state)[0]!;
  writeFileSync(stateFile(state.name), JSON.stringify({ ...state, pid: node0.pid, log: node0.log }, null, 2));
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (isAlive(pid) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return !isAlive(pid);
}

/** The processes of process group `pgid` with a thread yet to exit (a zombie leader's threads still hold its ports), from /proc. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return isAlive(pgid) ? [pgid] : [];
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const { state, pgrp } = statFields(readFileSync(`/proc/${e}/stat`, "utf8"));
      if (pgrp === pgid && (!exited(state) || threadsLeft(Number(e)))) out.push(Number(e));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/**
 * Waits until no process of the group is left. A node is gone only when all
 * of its processes are: a launcher (tsx, a shell) can exit a moment before the
 * server it started, which still holds the port and resets connections that
 * the kernel queued for it; "gone" must mean the port refuses.
 */
export async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (groupMembers(pgid).length > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return groupMembers(pgid).length === 0;
}

export async function waitHealthy(url: string, pid: number, exited: () => string | undefined, timeoutMs: number, log: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = "no answer";
  while (performance.now() < deadline) {
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
  killGroup(pid, "SIGKILL");
  throw new TargetError(`target not healthy within ${timeoutMs / 1000} s (${url}: ${last}); last log lines:\n${tail(log)}`);
}

/** The variables every node of a target gets, from the services it declares (each its own server). */
export function baseEnv(
  target: BundledTarget,
  opts: { trace: boolean; postgres?: TargetPostgres; kafka?: TargetKafka; redis?: TargetRedis; cores?: CoreShare },
): Record<string, string> {
  const { manifest } = target;
  return {
    ...manifest.local!.env,
    ...coreEnv(opts.cores, manifest.local!.env?.JAVA_TOOL_OPTIONS ?? process.env.JAVA_TOOL_OPTIONS),
    HOST: "127.0.0.1",
    SFBENCH_TRACE: opts.trace ? "1" : "0",
    ...(manifest.build ? { SFBENCH_BUILD_DIR: buildDir(target.name) } : {}),
    ...(opts.postgres ? { DATABASE_URL: opts.postgres.url } : {}),
    ...(opts.redis ? { REDIS_URL: opts.redis.url } : {}),
    ...(opts.kafka ? { KAFKA_BROKERS: opts.kafka.brokers.join(",") } : {}),
  };
}

export interface NodePlan {
  index: number;
  port: number;
  clusterPort?: number;
  /** SFBENCH_NODES for this node */
  nodes?: number;
  /** cluster ports of every node so far, index order (SFBENCH_CLUSTER_PEERS) */
  peers?: number[];
}

/** A node started by this process: it can tell how the node ended. */
export interface SpawnedNode {
  node: RunningNode;
  exited(): string | undefined;
}

/**
 * Starts one node detached, in a process group of its own, its output
 * appended to its log (a restart keeps the crash's last lines). Node i > 0 of
 * a target declaring nodes.command runs that command.
 */
export function spawnNode(
  target: BundledTarget,
  base: Record<string, string>,
  plan: NodePlan,
  opts: { truncateLog: boolean; onProgress?: (m: string) => void; cpus?: string },
): SpawnedNode {
  const { name, dir, manifest } = target;
  const dataDir = nodeDataDir(name, plan.index);
  mkdirSync(dataDir, { recursive: true });
  const env: Record<string, string> = {
    ...base,
    PORT: String(plan.port),
    SFBENCH_DATA_DIR: dataDir,
    ...(plan.nodes !== undefined
      ? {
          SFBENCH_NODE_INDEX: String(plan.index),
          SFBENCH_NODES: String(plan.nodes),
          SFBENCH_CLUSTER_PORT: String(plan.clusterPort),
          SFBENCH_CLUSTER_PEERS: (plan.peers ?? []).map((p) => `127.0.0.1:${p}`).join(","),
        }
      : {}),
  };
  const command = plan.index > 0 && manifest.nodes?.command ? manifest.nodes.command : manifest.local!.command;
  mkdirSync(stateDir(), { recursive: true });
  const log = nodeLog(name, plan.index);
  const fd = openSync(log, opts.truncateLog ? "w" : "a");
  opts.onProgress?.(`starting ${name}${plan.nodes !== undefined ? ` node ${plan.index}` : ""}: ${command.join(" ")}`);
  // taskset execs the command: the pid is the target's
  const argv = [...(opts.cpus ? ["taskset", "-c", opts.cpus] : []), ...expandArgs(command, env)];
  const child = spawn(argv[0]!, argv.slice(1), { cwd: dir, env: { ...process.env, ...env }, detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  let exited: string | undefined;
  child.on("exit", (code, signal) => (exited = code !== null ? `code ${code}` : `signal ${signal}`));
  child.on("error", (e) => (exited = `an error: ${e.message}`));
  if (!child.pid) throw new TargetError(`could not start ${command.join(" ")}`);
  child.unref();
  const node: RunningNode = {
    index: plan.index,
    pid: child.pid,
    port: plan.port,
    url: `http://127.0.0.1:${plan.port}`,
    ...(plan.clusterPort !== undefined ? { clusterPort: plan.clusterPort } : {}),
    ...(plan.nodes !== undefined ? { nodes: plan.nodes } : {}),
    log,
    dataDir,
    startedAt: new Date().toISOString(),
  };
  return { node, exited: () => exited };
}

/** Every live descendant of `root`, from /proc (PostgreSQL's backends make themselves group leaders, so a process group does not find them). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const { ppid } = statFields(readFileSync(`/proc/${name}/stat`, "utf8"));
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}
