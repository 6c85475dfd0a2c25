/**
 * The resilience experiments' hands on a target run from its image (core's
 * TargetControl, as provider-local's localTargetControl): kill a node's
 * container (a single-node target dies whole, its own PostgreSQL included, as
 * a local one does), start it again with its data, add a node to an elastic
 * target started with a node count (the balancer gets it on SIGHUP), and the
 * pids whose trees give the target's memory: each container's first process
 * (every process of a container descends from it) and its own PostgreSQL's
 * postmaster and Redis. Its CPU cost is `cost`: the containers' cgroup
 * accounting and those servers' process trees, on the host beside them, kept
 * over a node's kill and restart (a removed container's cgroup goes with it,
 * so its last reading, taken right before the signal, is kept).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { nodeSupport, type TargetControl, type TargetManifest } from "@sfbench/core";
import { descendants, isAlive, waitGone } from "@sfbench/provider-local";
import { TargetError } from "@sfbench/catalogue";
import { cgroupCpuSeconds, treeCpuSeconds } from "./cgroup.ts";
import { runDiskMib } from "./run-volume.ts";
import { watchServerDisk } from "./server-disk.ts";
import {
  CLUSTER_PORT_BASE,
  containerPid,
  kafkaDir,
  launchNode,
  planOf,
  postgresDir,
  readContainerState,
  redisDir,
  startRunKafka,
  startRunPostgres,
  startRunRedis,
  waitHealthy,
  writeBackends,
  writeContainerState,
  type ContainerTarget,
  type StartedContainerTarget,
} from "./container.ts";

export interface ContainerTargetControl extends TargetControl {
  runId: string;
  /** how the target died, when a container that was not killed on purpose is gone; undefined while it is fine */
  exited(): string | undefined;
  /** root pids whose trees are the target's cost: each running container's first process and its own PostgreSQL and Redis */
  pids(): number[];
  /** CPU seconds the running containers' cgroups have used since they (re)started */
  cgroupCpuSeconds(): number;
  cost: NonNullable<TargetControl["cost"]>;
  /** every node's log (span lines included when tracing) */
  logs(): string[];
}

const GONE_TIMEOUT_MS = 10_000;

/** The run's own servers beside its containers, on the host: their process trees are the target's too. */
const SERVICES = ["postgres", "redis", "kafka"] as const;
type Service = (typeof SERVICES)[number];
/** The servers a crash of the whole target takes with it. */
const CRASHING: readonly Service[] = ["postgres", "redis"];

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * A killed postmaster's lock file names a pid that is dead now; PostgreSQL
 * refuses to start over it ("lock file already exists") until it is removed,
 * as after any crash.
 */
function clearStaleLock(dir: string): void {
  const file = join(dir, "data", "postmaster.pid");
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
  if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) rmSync(file, { force: true });
}

export async function containerTargetControl(
  started: StartedContainerTarget,
  manifest: TargetManifest,
  opts: { onProgress?: (m: string) => void } = {},
): Promise<ContainerTargetControl> {
  const { runId } = started;
  const support = nodeSupport(manifest);
  const state = (): ContainerTarget => {
    const s = readContainerState(runId);
    if (!s) throw new TargetError(`run ${runId} has no container target (torn down)`);
    return s;
  };
  // read synchronously by the cost sampler: refreshed whenever a container (re)starts
  const pids = new Map<number, number>();
  // the cost's CPU: per node and for the run's PostgreSQL, the pid read and the most it was seen to have used; `ended` holds what the replaced ones used
  const seen = new Map<number | Service, { pid: number; seconds: number }>();
  let ended = 0;
  const readCpu = (key: number | Service) => {
    const e = seen.get(key);
    if (!e) return;
    const now = typeof key === "string" ? treeCpuSeconds(e.pid, descendants(e.pid)) : cgroupCpuSeconds(e.pid);
    if (now !== undefined) e.seconds = Math.max(e.seconds, now);
  };
  /** Starts counting `pid` for `key`, keeping what the process it replaces used (undefined: the key has none now). */
  const countAs = (key: number | Service, pid: number | undefined) => {
    const e = seen.get(key);
    if (e?.pid === pid) return;
    if (e) {
      readCpu(key);
      ended += e.seconds;
      seen.delete(key);
    }
    if (pid) seen.set(key, { pid, seconds: 0 });
  };
  const countServices = () => {
    const s = readContainerState(runId);
    for (const service of SERVICES) countAs(service, s?.[service]?.pid);
  };
  const refreshPid = async (index: number, container: string) => {
    const pid = await containerPid(container);
    if (pid) pids.set(index, pid);
    else pids.delete(index);
    countAs(index, pid);
    countServices();
  };
  for (const n of started.nodes) await refreshPid(n.index, n.container);
  // how each node's attached client ended; a node killed on purpose is not a death
  const exits = new Map(started.nodeExits);
  let cpus: string | undefined;
  const placed = () => (cpus ? { cpus } : {});
  // the run's servers write to the host's disk: past the run's quota they are killed and the run ends with why
  const quotaMib = runDiskMib();
  let overQuota: string | undefined;
  // read from a timer: a state file caught while it is written reads as null (still there), never as a thrown error
  const stateNow = (): ContainerTarget | null | undefined => {
    try {
      return readContainerState(runId);
    } catch {
      return null;
    }
  };
  watchServerDisk({
    dirs: () => [postgresDir(runId), redisDir(runId), kafkaDir(runId)],
    quotaMib,
    running: () => stateNow() !== undefined,
    onOver: (usedMib) => {
      overQuota =
        `its servers' data on the host's disk (${usedMib} MiB) passed the run's quota of ${quotaMib} MiB (SFBENCH_RUN_DISK_MIB), ` + "and sfbench killed them";
      const now = stateNow();
      if (now === undefined) return; // torn down meanwhile: nothing of it runs
      const s = now ?? started;
      const servers = SERVICES.flatMap((service) => (s[service] ? [s[service].pid, ...descendants(s[service].pid)] : []));
      signalAll(servers, "SIGKILL");
    },
  });
  return {
    runId,
    manifest,
    maxNodes: started.cluster ? support.max : 1,
    elastic: started.cluster && support.elastic,
    nodes: () => state().nodes.length,
    async kill(index, signal) {
      const s = state();
      const node = s.nodes[index];
      if (!node) throw new TargetError(`node: ${index} is not a node of run ${runId} (allowed: 0..${s.nodes.length - 1})`);
      const pid = pids.get(index);
      if (!pid || !isAlive(pid)) throw new TargetError(`${node.container} is not running`);
      writeContainerState({ ...s, killed: [...new Set([...s.killed, index])] });
      // a single node is the whole target: its PostgreSQL (postmaster and backends) and Redis die with it, as a local target's do;
      // its Kafka broker, the log a dataflow system replays from, stays up, as a local target's does; one of several nodes dies alone
      const whole = s.nodes.length === 1;
      const dying = whole ? CRASHING.filter((service) => s[service] && isAlive(s[service].pid)) : [];
      const servers = dying.flatMap((service) => [s[service]!.pid, ...descendants(s[service]!.pid)]);
      // what it used up to now is kept: its cgroup is gone once it is
      readCpu(index);
      for (const service of dying) readCpu(service);
      const at = Date.now();
      // the container's first process from the host: it is the container's init, so the kernel ends the rest of it
      signalAll([pid], signal);
      signalAll(servers, signal);
      await waitGone(pid, GONE_TIMEOUT_MS);
      await Promise.all(servers.map((p) => waitGone(p, GONE_TIMEOUT_MS)));
      pids.delete(index);
      return { at };
    },
    async restart(index) {
      if (overQuota) throw new TargetError(`run ${runId} cannot start again: ${overQuota}`);
      let s = state();
      const node = s.nodes[index];
      if (!node) throw new TargetError(`node: ${index} is not a node of run ${runId}`);
      const running = pids.get(index);
      exits.delete(index);
      if (running && isAlive(running)) {
        readCpu(index);
        signalAll([running], "SIGKILL");
        await waitGone(running, GONE_TIMEOUT_MS);
      }
      if (s.postgres && !isAlive(s.postgres.pid)) {
        clearStaleLock(s.postgres.dir);
        const postgres = await startRunPostgres(s, manifest, { keepData: true, onProgress: opts.onProgress, ...placed() });
        s = { ...s, postgres };
        writeContainerState(s);
      }
      if (s.redis && !isAlive(s.redis.pid)) {
        const redis = await startRunRedis(s, manifest, { keepData: true, onProgress: opts.onProgress, ...placed() });
        s = { ...s, redis };
        writeContainerState(s);
      }
      if (s.kafka && !isAlive(s.kafka.pid)) {
        const kafka = await startRunKafka(s, { keepData: true, onProgress: opts.onProgress, ...placed() });
        s = { ...s, kafka };
        writeContainerState(s);
      }
      const launched = await launchNode(s, manifest, planOf(s, node), { truncateLog: false, onProgress: opts.onProgress, ...placed() });
      writeContainerState({ ...s, nodes: s.nodes.map((n) => (n.index === index ? launched.node : n)), killed: s.killed.filter((i) => i !== index) });
      await waitHealthy(launched.node.url + manifest.health, launched.exited, support.restartTimeoutSeconds * 1000, launched.node.log);
      exits.set(index, launched.exited);
      await refreshPid(index, launched.node.container);
    },
    async addNode() {
      const s = state();
      if (!support.elastic) throw new TargetError(`${manifest.name} cannot take a node while it runs: target.json nodes.elastic is not true`);
      if (!s.cluster) throw new TargetError(`${manifest.name} was started as one plain container; start it with a node count (nodes) to add nodes`);
      if (s.nodes.length >= support.max)
        throw new TargetError(`nodes: ${manifest.name} already runs ${s.nodes.length} nodes, its maximum (target.json nodes.max)`);
      const index = s.nodes.length;
      const port = s.published[index];
      if (port === undefined) throw new TargetError(`run ${runId} published no port for node ${index}`);
      const clusterPort = CLUSTER_PORT_BASE + index;
      const plan = { index, port, clusterPort, nodes: index + 1, peers: [...s.nodes.map((n) => n.clusterPort!), clusterPort] };
      const launched = await launchNode(s, manifest, plan, { truncateLog: true, onProgress: opts.onProgress, ...placed() });
      writeContainerState({ ...state(), nodes: [...s.nodes, launched.node] });
      try {
        await waitHealthy(
          launched.node.url + manifest.health,
          launched.exited,
          (manifest.local?.startupTimeoutSeconds ?? support.restartTimeoutSeconds) * 1000,
          launched.node.log,
        );
      } catch (e) {
        writeContainerState({ ...state(), nodes: s.nodes });
        throw e;
      }
      exits.set(index, launched.exited);
      await refreshPid(index, launched.node.container);
      // only once it is healthy does the balancer send it its share
      const now = state();
      if (now.balancer) {
        writeBackends(now);
        process.kill(now.balancer.pid, "SIGHUP");
      }
    },
    placeOn(list) {
      cpus = list;
    },
    exited() {
      if (overQuota) return overQuota;
      let s: ContainerTarget | undefined;
      try {
        s = readContainerState(runId);
      } catch {
        // read while being written: the next check sees it
        return undefined;
      }
      if (!s) return "its state is gone (torn down)";
      const killed = new Set(s.killed);
      for (const [index, how] of exits) {
        const ended = killed.has(index) ? undefined : how();
        if (ended !== undefined) return s.nodes.length > 1 ? `node ${index}: ${ended}` : ended;
      }
      return undefined;
    },
    pids() {
      const s = readContainerState(runId);
      const servers = SERVICES.map((service) => s?.[service]?.pid).filter((pid): pid is number => pid !== undefined && isAlive(pid));
      return [...[...pids.values()].filter(isAlive), ...servers];
    },
    cgroupCpuSeconds() {
      return [...pids.values()].reduce((sum, pid) => sum + (cgroupCpuSeconds(pid) ?? 0), 0);
    },
    cost: {
      source: "cgroup",
      cpuSeconds() {
        countServices();
        let sum = ended;
        for (const key of seen.keys()) {
          readCpu(key);
          sum += seen.get(key)!.seconds;
        }
        return sum;
      },
    },
    logs() {
      return (readContainerState(runId)?.nodes ?? started.nodes).map((n) => n.log);
    },
  };
}
