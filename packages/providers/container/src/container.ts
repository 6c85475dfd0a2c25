/**
 * A target run from its image: each node one podman container with the run's
 * machine class (CPU quota, memory limit), keyed by the run id.
 *
 * Networking: the run's own (run-network.ts). Its nodes share one pod, whose
 * network namespace sits on a bridge of the run's own, fenced so that nothing
 * of the installation answers from inside: its 127.0.0.1 is the run's, where
 * the nodes find each other (cluster ports) and the run's own PostgreSQL,
 * which runs on the host (same binaries and settings as a local target's,
 * its processes in the cost) but inside the pod's namespace. Each node's port
 * is published on the host's 127.0.0.1 under the same number, which is where
 * the load, the health check and sfbench's balancer reach it (a DNAT in the
 * kernel: no user-space proxy in the measured path). A manifest that
 * declares Redis or Kafka gets a Redis or a Kafka broker of the run's own
 * there too; the shared ones are sfbench's own (its queue, its span lines)
 * and never handed to an image.
 *
 * Output: the container runs attached to a detached `podman run` whose stdout
 * and stderr go to the node's log file, so span lines reach the trace shipper
 * byte for byte as a local target's do. State lives in
 * .sfbench/containers/<runId>/state.json, so teardown from another process
 * (the worker's sweep) finds everything; every container carries the label
 * org.sfbench.run=<runId>.
 *
 * Nodes: a run started with a node count (a manifest that declares `nodes`)
 * gets one container per node, each with the class's CPU quota and memory, its
 * own port and cluster port and SFBENCH_NODE_INDEX / SFBENCH_NODES /
 * SFBENCH_CLUSTER_PORT / SFBENCH_CLUSTER_PEERS as provider-local sets them;
 * with routing "balancer" provider-local's balancer process listens on the
 * run's port in front of them (it is sfbench's, not the target's: not in the
 * cost). Without a node count: the one container on the run's port.
 */
import { createHash } from "node:crypto";
import { spawn } from "node:child_process";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TargetManifest } from "@sfbench/core";
import { nodeSupport, tail } from "@sfbench/core";
import { freePort, isAlive, portFree, spawnBalancerProcess } from "@sfbench/provider-local";
import { TargetBusyError, TargetError } from "@sfbench/catalogue";
import {
  DURABLE,
  paths,
  SCRATCH,
  startKafkaInstance,
  startPostgresInstance,
  startRedisInstance,
  stopKafkaInstance,
  stopPostgresInstance,
  stopRedisInstance,
  type PostgresReportedSettings,
} from "@sfbench/services";
import { z } from "zod";
import { MachineClass } from "./machine.ts";
import { podman, podmanEnv, podmanRemove } from "./podman.ts";
import { createRunNetwork, forwardsOf, removeRunNetwork, removeStaleForwards, runNetworks } from "./run-network.ts";
import { mountRunVolume, runDiskMib, unmountRunVolume } from "./run-volume.ts";
import { keepRunData, restoreRunData } from "./run-data.ts";

/** Tasks (processes and threads) one node may have: podman's default, written down; the JVM targets use a few hundred. */
export const PIDS_LIMIT = 2048;

export const RUN_LABEL = "org.sfbench.run";

/** Host ids a run's user namespace maps its 65536 ids onto: above any account a host gives out, one block per run. */
const USERNS_BASE = 1 << 24;
export const USERNS_SIZE = 65536;
const USERNS_BLOCKS = 4096;

/**
 * The first host uid (and gid) of the run's user namespace: the image's root
 * is that id on the host, its user 1000 that id + 1000, owners of nothing
 * outside the run. From the run's id, so every node of a run and a restarted
 * node get the same, and two runs almost never share one (4096 blocks).
 */
export function userNamespaceBase(runId: string): number {
  const block = createHash("sha256").update(runId).digest().readUInt32BE(0) % USERNS_BLOCKS;
  return USERNS_BASE + block * USERNS_SIZE;
}

const ContainerNode = z.strictObject({
  index: z.number().int().nonnegative(),
  /** the container's name: sfbench-<runId>-node-<index> */
  container: z.string(),
  port: z.number().int().positive(),
  url: z.string(),
  /** SFBENCH_CLUSTER_PORT (a run started with a node count) */
  clusterPort: z.number().int().positive().optional(),
  /** SFBENCH_NODES the container was started with */
  nodes: z.number().int().positive().optional(),
  log: z.string(),
  /** the host directory mounted at /data (SFBENCH_DATA_DIR), kept across restarts */
  dataDir: z.string(),
  /** the attached `podman run` client: it exits with the container's code */
  clientPid: z.number().int(),
  startedAt: z.string(),
});
export type ContainerNode = z.infer<typeof ContainerNode>;

const TargetPostgres = z.strictObject({
  pid: z.number().int(),
  port: z.number().int(),
  url: z.string(),
  dir: z.string(),
  settings: z.custom<PostgresReportedSettings>(),
});

/** The run's own Redis (redis-instance.ts), for an image that declares `redis` */
const TargetRedis = z.strictObject({
  pid: z.number().int(),
  port: z.number().int(),
  url: z.string(),
  dir: z.string(),
  version: z.string(),
});

/** The run's own Kafka broker (kafka-instance.ts), for an image that declares `kafka` */
const TargetKafka = z.strictObject({
  pid: z.number().int(),
  port: z.number().int(),
  brokers: z.array(z.string()),
  dir: z.string(),
  version: z.string(),
});

export const ContainerTarget = z.strictObject({
  runId: z.string().min(1),
  name: z.string(),
  image: z.string(),
  machine: MachineClass,
  port: z.number().int().positive(),
  url: z.string(),
  trace: z.boolean(),
  postgres: TargetPostgres.optional(),
  redis: TargetRedis.optional(),
  kafka: TargetKafka.optional(),
  /** the run's own network and the pod whose namespace its nodes and PostgreSQL share */
  network: z.string().optional(),
  pod: z.string().optional(),
  /** the run's own file system (run-volume.ts), where every node's /data is: its size is the run's disk quota */
  volume: z.string().optional(),
  /** the host loopback ports published to the pod: node i listens on published[i] (a node added later takes the next) */
  published: z.array(z.number().int().positive()).default([]),
  nodes: z.array(ContainerNode),
  /** nodes killed on purpose and not started again */
  killed: z.array(z.number().int()).default([]),
  /** started with a node count: nodes get SFBENCH_NODE_* and can be added */
  cluster: z.boolean().default(false),
  /** sfbench's balancer on `port` (routing "balancer" with a node count) */
  balancer: z.strictObject({ pid: z.number().int(), port: z.number().int(), log: z.string(), backendsFile: z.string() }).optional(),
  startedAt: z.string(),
});
export type ContainerTarget = z.infer<typeof ContainerTarget>;

export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
export const containersHome = () => join(paths.home, "containers");
export const runDir = (runId: string) => {
  if (!RUN_ID.test(runId)) throw new TargetError(`run id: ${JSON.stringify(runId)} is not one (letters, digits, ., _ and -)`);
  return join(containersHome(), runId);
};
const stateFile = (runId: string) => join(runDir(runId), "state.json");

export function readContainerState(runId: string): ContainerTarget | undefined {
  const file = stateFile(runId);
  if (!existsSync(file)) return undefined;
  return ContainerTarget.parse(JSON.parse(readFileSync(file, "utf8")));
}

export function writeContainerState(state: ContainerTarget): void {
  mkdirSync(runDir(state.runId), { recursive: true });
  writeFileSync(stateFile(state.runId), JSON.stringify(state, null, 2));
}

export interface ContainerStartOptions {
  /** keys the containers, their data and teardown */
  runId: string;
  /** an image in the project's podman storage (built by buildTargetImage or loaded with loadImageArchive) */
  image: string;
  manifest: TargetManifest;
  machine: MachineClass;
  /** the host loopback port the target listens on (default the manifest's) */
  port?: number;
  /** SFBENCH_TRACE=1: span lines to stdout, hence to the node's log */
  trace?: boolean;
  /**
   * This many containers of a manifest that declares `nodes` (1..nodes.max),
   * as provider-local's `nodes`: absent, the one plain container; given (also
   * 1), every node gets SFBENCH_NODE_* and, with routing "balancer", sfbench's
   * balancer takes the run's port.
   */
  nodes?: number;
  /** a run's kept data (teardownRun's keepDataIn) to start on instead of empty data: its nodes' /data and its own servers' */
  restoreFrom?: string;
  onProgress?: (message: string) => void;
}

/** Where and as what a node's container starts (provider-local's NodePlan). */
export interface ContainerNodePlan {
  index: number;
  port: number;
  clusterPort?: number;
  /** SFBENCH_NODES */
  nodes?: number;
  /** every node's cluster port, index order (SFBENCH_CLUSTER_PEERS) */
  peers?: number[];
}

/** A restarted node gets its ports back and the nodes there are now (one added since its first start included). */
export function planOf(state: ContainerTarget, node: ContainerNode): ContainerNodePlan {
  if (!state.cluster) return { index: node.index, port: node.port };
  return { index: node.index, port: node.port, clusterPort: node.clusterPort!, nodes: state.nodes.length, peers: state.nodes.map((n) => n.clusterPort!) };
}

const cores = (machine: MachineClass) => Math.max(1, Math.ceil(machine.cpus));

/** What every node's container gets from the services the manifest declares. */
function serviceEnv(manifest: TargetManifest, state: Pick<ContainerTarget, "trace" | "postgres" | "redis" | "kafka" | "machine">): Record<string, string> {
  return {
    ...manifest.local?.env,
    // the cores its class gives each node, told before it starts as a local target is told its share (a fraction counts as
    // a core); the JVM reads the container's quota itself, and JAVA_TOOL_OPTIONS stays the image's
    SFBENCH_CPUS: String(cores(state.machine)),
    GOMAXPROCS: String(cores(state.machine)),
    // every address of the pod: the published ports reach it on the pod's side of the bridge
    HOST: "0.0.0.0",
    SFBENCH_TRACE: state.trace ? "1" : "0",
    SFBENCH_DATA_DIR: "/data",
    ...(state.postgres ? { DATABASE_URL: state.postgres.url } : {}),
    ...(state.redis ? { REDIS_URL: state.redis.url } : {}),
    ...(state.kafka ? { KAFKA_BROKERS: state.kafka.brokers.join(",") } : {}),
  };
}

const NETWORK_OWNER = "container";
export const podName = (runId: string) => `sfbench-${runId}-pod`;
export const networkName = (runId: string) => `sfbench-${runId}`;

/** The network namespace of the run's pod (its infra container's), for the services started inside it. */
export async function podNetns(pod: string): Promise<string> {
  const infra = (await podman(["pod", "inspect", "--format", "{{.InfraContainerID}}", pod])).stdout.trim();
  const pid = infra ? await containerPid(infra) : undefined;
  if (!pid) throw new TargetError(`the pod ${pod} of the run has no running infra container, so no network namespace`);
  return `/proc/${pid}/ns/net`;
}

/** Makes the run's network and its pod, every port in `published` published on the host's 127.0.0.1 under its own number. */
async function createRunPod(state: ContainerTarget, onProgress?: (m: string) => void): Promise<void> {
  const network = await createRunNetwork(state.runId, networkName(state.runId), NETWORK_OWNER, state.published);
  state.network = network.name;
  writeContainerState(state);
  const pod = podName(state.runId);
  onProgress?.(`the run's network ${network.name} (bridge ${network.iface}, fenced), pod ${pod} publishing 127.0.0.1:${state.published.join(", ")}`);
  await podman([
    "pod",
    "create",
    "--name",
    pod,
    // not RUN_LABEL: the pod's infra container carries the pod's labels, and the run's containers are its nodes
    "--label",
    `${RUN_LABEL}-pod=${state.runId}`,
    "--network",
    network.name,
    // a user namespace of the run's own, which its nodes join: root inside is an unprivileged id outside,
    // owner of no host file (the kernel maps the image's layers through an id-mapped mount, no copy)
    `--uidmap=0:${userNamespaceBase(state.runId)}:${USERNS_SIZE}`,
    `--gidmap=0:${userNamespaceBase(state.runId)}:${USERNS_SIZE}`,
    ...state.published.flatMap((p) => ["--publish", `127.0.0.1:${p}:${p}`]),
  ]);
  state.pod = pod;
  writeContainerState(state);
  await podman(["pod", "start", pod]);
}

export const containerName = (runId: string, index: number) => `sfbench-${runId}-node-${index}`;

/** A started node: how its attached client ended, once it has. */
export interface LaunchedNode {
  node: ContainerNode;
  exited(): string | undefined;
}

/**
 * Runs node `index`'s container (removing a stopped one of the same name
 * first: a restart), its output appended to its log.
 */
export async function launchNode(
  state: ContainerTarget,
  manifest: TargetManifest,
  plan: ContainerNodePlan,
  opts: { truncateLog: boolean; cpus?: string; onProgress?: (m: string) => void },
): Promise<LaunchedNode> {
  const { index, port } = plan;
  const name = containerName(state.runId, index);
  await podmanRemove(["rm", "--force", "--ignore", name]);
  const dir = runDir(state.runId);
  const dataDir = join(state.volume ?? dir, `node-${index}`, "data");
  mkdirSync(dataDir, { recursive: true });
  const log = join(dir, `node-${index}.log`);
  const env = {
    ...serviceEnv(manifest, state),
    PORT: String(port),
    ...(plan.nodes !== undefined
      ? {
          SFBENCH_NODE_INDEX: String(index),
          SFBENCH_NODES: String(plan.nodes),
          SFBENCH_CLUSTER_PORT: String(plan.clusterPort),
          // the pod's loopback, which only the run's nodes share
          SFBENCH_CLUSTER_PEERS: (plan.peers ?? []).map((p) => `127.0.0.1:${p}`).join(","),
        }
      : {}),
  };
  const { machine } = state;
  const args = [
    "run",
    "--name",
    name,
    "--label",
    `${RUN_LABEL}=${state.runId}`,
    // the run's pod: its own network namespace, nothing of the installation in it
    "--pod",
    state.pod!,
    // a submitted image is code its team wrote: no capabilities (the bundled images run as a user of their own and need none),
    // no gaining any through setuid binaries, and a bounded number of tasks (a fork bomb stops at the limit, not at the host's)
    "--cap-drop=ALL",
    "--security-opt=no-new-privileges",
    `--pids-limit=${PIDS_LIMIT}`,
    // the image's files cannot be changed: what a node writes goes to /data (its disk) or /tmp, /var/tmp, /run
    // (podman's tmpfs, counted in its memory)
    "--read-only",
    `--cpus=${machine.cpus}`,
    `--memory=${machine.memoryBytes}`,
    // no swap beyond the limit: the class's memory is the node's memory
    `--memory-swap=${machine.memoryBytes}`,
    // the run's core split: a restarted container stays on the target's cores
    ...(opts.cpus ? [`--cpuset-cpus=${opts.cpus}`] : []),
    // :U gives the mount to the image's user (the bundled images run as `node`)
    "--volume",
    `${dataDir}:/data:U`,
    ...Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
    state.image,
  ];
  const fd = openSync(log, opts.truncateLog ? "w" : "a");
  opts.onProgress?.(
    `starting ${name} from ${state.image} (${machine.cpus} CPU, ${Math.round(machine.memoryBytes / 2 ** 20)} MiB, the run's network, port ${port} on 127.0.0.1)`,
  );
  const child = spawn("podman", args, { env: podmanEnv(), detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  let exited: string | undefined;
  child.on("exit", (code, signal) => (exited = code !== null ? `code ${code}` : `signal ${signal}`));
  child.on("error", (e) => (exited = `an error: ${e.message}`));
  if (!child.pid) throw new TargetError(`could not run podman for ${name}`);
  child.unref();
  const node: ContainerNode = {
    index,
    container: name,
    port,
    url: `http://127.0.0.1:${port}`,
    ...(plan.clusterPort !== undefined ? { clusterPort: plan.clusterPort } : {}),
    ...(plan.nodes !== undefined ? { nodes: plan.nodes } : {}),
    log,
    dataDir,
    clientPid: child.pid,
    startedAt: new Date().toISOString(),
  };
  return { node, exited: () => exited };
}

/** Waits until `url` answers 200, failing early when the container's client exited. */
export async function waitHealthy(url: string, exited: () => string | undefined, timeoutMs: number, log: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = "no answer";
  while (performance.now() < deadline) {
    const how = exited();
    if (how !== undefined) throw new TargetError(`the container exited with ${how} during startup; last log lines:\n${tail(log)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = `answered ${res.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new TargetError(`the container was not healthy within ${timeoutMs / 1000} s (${url}: ${last}); last log lines:\n${tail(log)}`);
}

export const postgresDir = (runId: string) => join(runDir(runId), "postgres");

/**
 * The target's own PostgreSQL (durable settings when the manifest promises
 * durability), as local targets get, inside the run's pod's network namespace.
 */
export async function startRunPostgres(
  state: Pick<ContainerTarget, "runId" | "pod">,
  manifest: TargetManifest,
  opts: { keepData?: boolean; cpus?: string; onProgress?: (m: string) => void },
): Promise<ContainerTarget["postgres"]> {
  const { runId } = state;
  const durable = manifest.guarantees.durability !== "in-memory";
  if (!state.pod) throw new TargetError(`run ${runId} has no pod to start its PostgreSQL in`);
  const pgi = await startPostgresInstance({
    dir: postgresDir(runId),
    netns: await podNetns(state.pod),
    settings: durable ? DURABLE : SCRATCH,
    database: "target",
    keepData: opts.keepData,
    ...(opts.cpus ? { cpus: opts.cpus } : {}),
    onProgress: (m) => opts.onProgress?.(`postgres (${durable ? "durable" : "scratch"}, the run's own, in its network): ${m}`),
  });
  return { pid: pgi.pid, port: pgi.port, url: pgi.url, dir: pgi.dir, settings: pgi.settings };
}

export const redisDir = (runId: string) => join(runDir(runId), "redis");

/** The run's own Redis (durable when the manifest promises durability), inside the run's pod's network namespace. */
export async function startRunRedis(
  state: Pick<ContainerTarget, "runId" | "pod">,
  manifest: TargetManifest,
  opts: { keepData?: boolean; cpus?: string; onProgress?: (m: string) => void },
): Promise<ContainerTarget["redis"]> {
  const { runId } = state;
  const durable = manifest.guarantees.durability !== "in-memory";
  if (!state.pod) throw new TargetError(`run ${runId} has no pod to start its Redis in`);
  const r = await startRedisInstance({
    dir: redisDir(runId),
    netns: await podNetns(state.pod),
    durable,
    keepData: opts.keepData ?? false,
    ...(opts.cpus ? { cpus: opts.cpus } : {}),
    onProgress: (m) => opts.onProgress?.(`redis (${durable ? "durable" : "scratch"}, the run's own, in its network): ${m}`),
  });
  return { pid: r.pid, port: r.port, url: r.url, dir: r.dir, version: r.version };
}

export const kafkaDir = (runId: string) => join(runDir(runId), "kafka");

/**
 * The run's own Kafka broker, inside the run's pod's network namespace. Its
 * durability is Kafka's default whatever the manifest says (acknowledged once
 * in the page cache, flushed by the OS), as a local target's broker is: a
 * target that needs more asks for it on its producer or its topics.
 */
export async function startRunKafka(
  state: Pick<ContainerTarget, "runId" | "pod">,
  opts: { keepData?: boolean; cpus?: string; onProgress?: (m: string) => void },
): Promise<ContainerTarget["kafka"]> {
  const { runId } = state;
  if (!state.pod) throw new TargetError(`run ${runId} has no pod to start its Kafka in`);
  const k = await startKafkaInstance({
    dir: kafkaDir(runId),
    netns: await podNetns(state.pod),
    keepData: opts.keepData ?? false,
    ...(opts.cpus ? { cpus: opts.cpus } : {}),
    onProgress: (m) => opts.onProgress?.(`kafka (the run's own, in its network): ${m}`),
  });
  return { pid: k.pid, port: k.port, brokers: k.brokers, dir: k.dir, version: k.version };
}

/** A started container target; `exited` says how a node's container ended (undefined while every one runs), `nodeExits` per node. */
export interface StartedContainerTarget extends ContainerTarget {
  exited(): string | undefined;
  nodeExits: Map<number, () => string | undefined>;
}

/** The node count asked for, checked against what the manifest declares (as provider-local checks it). */
function nodeCount(manifest: TargetManifest, nodes: number | undefined): number {
  if (nodes === undefined) return 1;
  const { max } = nodeSupport(manifest);
  if (!Number.isInteger(nodes) || nodes < 1) throw new TargetError(`nodes: ${nodes} is not a node count (allowed: an integer from 1 to ${max})`);
  if (nodes > max) {
    throw new TargetError(
      manifest.nodes
        ? `nodes: ${manifest.name} supports at most ${max} nodes (target.json nodes.max)`
        : `nodes: ${manifest.name} is a single-process target (its target.json declares no nodes), so it runs as 1 node only`,
    );
  }
  return nodes;
}

const backendsFile = (runId: string) => join(runDir(runId), "balancer.json");

/** The balancer's backends: every node's URL (it skips a dead one by its refused connection). */
export function writeBackends(state: ContainerTarget): string {
  const file = backendsFile(state.runId);
  writeFileSync(file, JSON.stringify({ backends: state.nodes.map((n) => n.url) }));
  return file;
}

/** Ends the balancer's process group, if it runs. */
function stopBalancer(state: ContainerTarget | undefined): void {
  if (!state?.balancer || !isAlive(state.balancer.pid)) return;
  try {
    process.kill(-state.balancer.pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}

/**
 * Starts a target from its image: the shared services it declares, its own
 * PostgreSQL, then node 0's container; resolves once its health route answers
 * 200 within local.startupTimeoutSeconds. On any failure everything started
 * is torn down before the error is thrown.
 */
export async function startContainerTarget(opts: ContainerStartOptions): Promise<StartedContainerTarget> {
  const { runId, manifest } = opts;
  if (readContainerState(runId)) throw new TargetError(`run ${runId} already has a container target; tear it down first (teardownRun)`);
  const count = nodeCount(manifest, opts.nodes);
  const cluster = opts.nodes !== undefined;
  const balanced = cluster && nodeSupport(manifest).routing === "balancer";
  const port = opts.port ?? manifest.port;
  // a taken port would let the health check reach someone else's server
  if (!(await portFree(port))) throw new TargetBusyError(`port ${port} on 127.0.0.1 is in use; choose another port`);
  // a forward in the kernel wins over any listener: a dead run's is taken back, one whose network podman still holds is refused
  await removeStaleForwards([port]);
  const holders = await forwardsOf(port);
  if (holders.length)
    throw new TargetBusyError(
      `port ${port} on 127.0.0.1 is forwarded to podman network ${holders.join(", ")}; choose another port (a network whose run is gone gives the port back after podman network rm --force ${holders[0]})`,
    );
  // a pod's published ports are fixed when it is made: one for every node the run may come to have
  const slots = cluster ? nodeSupport(manifest).max : 1;
  const published: number[] = [];
  for (let index = 0; index < slots; index++) published.push(balanced || index > 0 ? await freePort() : port);
  const state: ContainerTarget = {
    runId,
    name: manifest.name,
    image: opts.image,
    machine: opts.machine,
    port,
    url: `http://127.0.0.1:${port}`,
    trace: opts.trace ?? false,
    published,
    nodes: [],
    killed: [],
    cluster,
    startedAt: new Date().toISOString(),
  };
  await unmountRunVolume(runDir(runId));
  rmSync(runDir(runId), { recursive: true, force: true });
  writeContainerState(state);
  try {
    const quota = runDiskMib();
    state.volume = await mountRunVolume(runDir(runId), quota);
    writeContainerState(state);
    opts.onProgress?.(`the run's disk: ${quota} MiB for every node's /data (SFBENCH_RUN_DISK_MIB)`);
    if (opts.restoreFrom) {
      opts.onProgress?.(`starting on the data kept in ${opts.restoreFrom}`);
      restoreRunData(opts.restoreFrom, runDir(runId), state.volume);
    }
    const keepData = opts.restoreFrom !== undefined;
    await createRunPod(state, opts.onProgress);
    if (manifest.services.includes("postgres")) {
      state.postgres = await startRunPostgres(state, manifest, { keepData, onProgress: opts.onProgress });
      writeContainerState(state);
    }
    if (manifest.services.includes("redis")) {
      state.redis = await startRunRedis(state, manifest, { keepData, onProgress: opts.onProgress });
      writeContainerState(state);
    }
    if (manifest.services.includes("kafka")) {
      state.kafka = await startRunKafka(state, { keepData, onProgress: opts.onProgress });
      writeContainerState(state);
    }
    const plans: ContainerNodePlan[] = [];
    for (let index = 0; index < count; index++) {
      // cluster ports live on the pod's own loopback: any number, none published
      plans.push({ index, port: published[index]!, ...(cluster ? { clusterPort: CLUSTER_PORT_BASE + index, nodes: count } : {}) });
    }
    if (cluster) for (const p of plans) p.peers = plans.map((q) => q.clusterPort!);
    const timeoutMs = (manifest.local?.startupTimeoutSeconds ?? DEFAULT_STARTUP_SECONDS) * 1000;
    const nodeExits = new Map<number, () => string | undefined>();
    const start = async (plan: ContainerNodePlan) => {
      const launched = await launchNode(state, manifest, plan, { truncateLog: true, onProgress: opts.onProgress });
      nodeExits.set(plan.index, launched.exited);
      state.nodes = [...state.nodes, launched.node].sort((a, b) => a.index - b.index);
      writeContainerState(state);
      await waitHealthy(launched.node.url + manifest.health, launched.exited, timeoutMs, launched.node.log);
    };
    // node 0 first (members of a self-routed target join it), then the others together
    await start(plans[0]!);
    await Promise.all(plans.slice(1).map(start));
    if (balanced) {
      state.balancer = await spawnBalancerProcess(port, writeBackends(state), join(runDir(runId), "balancer.log"));
      writeContainerState(state);
      await waitHealthy(state.url + manifest.health, () => (isAlive(state.balancer!.pid) ? undefined : "its process gone"), timeoutMs, state.balancer.log);
    }
    const exited = () => {
      for (const [index, how] of nodeExits) if (how() !== undefined) return count > 1 ? `node ${index}: ${how()}` : how();
      return undefined;
    };
    return { ...state, exited, nodeExits };
  } catch (e) {
    await teardownRun(runId);
    throw e;
  }
}

/** Node i's cluster port on the pod's loopback (not published, so no host port is taken for it). */
export const CLUSTER_PORT_BASE = 17400;

/** Startup allowance of a manifest without a local section (a submitted image): what core's nodeSupport assumes for restarts. */
const DEFAULT_STARTUP_SECONDS = 60;

/** The host pid of a running container's first process, undefined when it does not run. */
export async function containerPid(name: string): Promise<number | undefined> {
  try {
    const pid = Number((await podman(["inspect", "--format", "{{.State.Pid}}", name])).stdout.trim());
    return pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Every container of the project's podman storage labelled with `runId` (or with any run id). */
export async function runContainers(runId?: string): Promise<string[]> {
  const { stdout } = await podman(["ps", "--all", "--filter", `label=${RUN_LABEL}${runId ? `=${runId}` : ""}`, "--format", "{{.Names}}"]);
  return stdout.split("\n").filter(Boolean);
}

/**
 * Removes a run's containers (killed at once), stops its PostgreSQL and
 * deletes its directory; `logsTo`: each node's log is copied there first
 * (the run's raw data keeps what the target printed). `keepDataIn`: the
 * nodes are stopped as a local target's are (SIGTERM, SIGKILL after 10 s)
 * instead of killed, and once every server of the run has stopped its data
 * is copied there (run-data.ts), for a later run to start on. Idempotent: a
 * run already torn down, or never started, is fine.
 */
export async function teardownRun(runId: string, opts: { logsTo?: string; keepDataIn?: string } = {}): Promise<void> {
  let state: ContainerTarget | undefined;
  try {
    state = readContainerState(runId);
  } catch {
    // an unreadable state file: the containers are still found by their label
  }
  stopBalancer(state);
  const names = await runContainers(runId).catch(() => [] as string[]);
  // a clean stop: what the target acknowledged and holds in memory still reaches its disk, as on a local target's stop
  if (opts.keepDataIn && names.length) await podman(["stop", "--time", "10", ...names], { timeoutMs: 60_000 });
  if (names.length) await podmanRemove(["rm", "--force", "--time", "0", ...names]);
  await stopPostgresInstance(postgresDir(runId));
  await stopRedisInstance(redisDir(runId));
  await stopKafkaInstance(kafkaDir(runId));
  // the pod (its infra container) after its nodes and the services, which live in its namespace; then the network and its fence
  await podmanRemove(["pod", "rm", "--force", "--ignore", podName(runId)]);
  // the infra container's conmon holds each published port until it has exited, a moment after `pod rm` returns:
  // a run started next on one of them would find it taken
  await portsReleased(state?.published ?? []);
  await removeRunNetwork(runId, networkName(runId));
  const dir = runDir(runId);
  if (!existsSync(dir)) {
    if (opts.keepDataIn) throw new TargetError(`run ${runId} has no data to keep: it was never started or is torn down already`);
    return;
  }
  let keepFailed: unknown;
  if (opts.keepDataIn) {
    try {
      keepRunData(dir, state?.volume, opts.keepDataIn);
    } catch (e) {
      keepFailed = e;
    }
  }
  await unmountRunVolume(dir);
  if (opts.logsTo) {
    mkdirSync(opts.logsTo, { recursive: true });
    for (const entry of readdirSync(dir)) if (entry.endsWith(".log")) copyFileSync(join(dir, entry), join(opts.logsTo, `container-${entry}`));
  }
  rmSync(dir, { recursive: true, force: true });
  if (keepFailed !== undefined) {
    rmSync(opts.keepDataIn!, { recursive: true, force: true });
    throw keepFailed;
  }
}

/** Waits (at most 10 s) until no process holds any of `published` on the host's loopback. */
async function portsReleased(published: number[]): Promise<void> {
  const deadline = performance.now() + 10_000;
  for (const port of published) while (!(await portFree(port)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** Tears down every run that left containers or state behind (a worker's start-up sweep after a crash). */
export async function sweepContainerRuns(): Promise<string[]> {
  const ids = new Set<string>();
  if (existsSync(containersHome())) for (const e of readdirSync(containersHome())) if (existsSync(join(containersHome(), e, "state.json"))) ids.add(e);
  for (const name of await runContainers().catch(() => [] as string[])) {
    const id = /^sfbench-(.+)-node-\d+$/.exec(name)?.[1];
    if (id) ids.add(id);
  }
  // a run's network outlives a crash between its making and its state's first write
  for (const { runId, name } of await runNetworks(NETWORK_OWNER).catch(() => [])) if (RUN_ID.test(runId) && name === networkName(runId)) ids.add(runId);
  for (const id of ids) await teardownRun(id);
  return [...ids];
}
