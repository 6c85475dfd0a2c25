/**
 * The resilience experiments' hands on a target run from its image (core's
 * TargetControl, as provider-local's localTargetControl): kill the container
 * (a single-node target dies whole, its own PostgreSQL included, as a local
 * one does), start it again with its data, and the pids the cost sampler
 * counts: each container's first process (every process of a container
 * descends from it, so its tree is the container's cgroup) and its own
 * PostgreSQL's postmaster.
 *
 * One container per target for now: a manifest's `nodes` are not run as
 * several containers, so addNode says so (the scale-up and scalability
 * experiments then fail with that message instead of measuring something else).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { nodeSupport, type TargetControl, type TargetManifest } from "@sfbench/core";
import { isAlive, TargetError } from "@sfbench/provider-local";
import { cgroupCpuSeconds } from "./cgroup.ts";
import { containerPid, launchNode, readContainerState, startRunPostgres, waitHealthy, writeContainerState, type ContainerTarget, type StartedContainerTarget } from "./container.ts";

export interface ContainerTargetControl extends TargetControl {
  runId: string;
  /** how the target died, when a container that was not killed on purpose is gone; undefined while it is fine */
  exited(): string | undefined;
  /** root pids whose trees are the target's cost: each running container's first process and its own PostgreSQL */
  pids(): number[];
  /** CPU seconds the running containers' cgroups have used since they (re)started */
  cgroupCpuSeconds(): number;
  /** every node's log (span lines included when tracing) */
  logs(): string[];
}

/** Every live descendant of `root`, from /proc (PostgreSQL's backends make themselves group leaders). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
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

async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return !isAlive(pid);
}

const GONE_TIMEOUT_MS = 10_000;

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

export async function containerTargetControl(started: StartedContainerTarget, manifest: TargetManifest, opts: { onProgress?: (m: string) => void } = {}): Promise<ContainerTargetControl> {
  const { runId } = started;
  const support = nodeSupport(manifest);
  const state = (): ContainerTarget => {
    const s = readContainerState(runId);
    if (!s) throw new TargetError(`run ${runId} has no container target (torn down)`);
    return s;
  };
  // read synchronously by the cost sampler: refreshed whenever a container (re)starts
  const pids = new Map<number, number>();
  const refreshPid = async (index: number, container: string) => {
    const pid = await containerPid(container);
    if (pid) pids.set(index, pid);
    else pids.delete(index);
  };
  await refreshPid(0, started.nodes[0]!.container);
  let exited = started.exited;
  let touched = false;
  let cpus: string | undefined;
  return {
    runId,
    manifest,
    maxNodes: 1,
    elastic: false,
    nodes: () => state().nodes.length,
    async kill(index, signal) {
      const s = state();
      const node = s.nodes[index];
      if (!node) throw new TargetError(`node: ${index} is not a node of run ${runId} (allowed: 0..${s.nodes.length - 1})`);
      const pid = pids.get(index);
      if (!pid || !isAlive(pid)) throw new TargetError(`${node.container} is not running`);
      touched = true;
      writeContainerState({ ...s, killed: [...new Set([...s.killed, index])] });
      // the one node is the whole target: its PostgreSQL (postmaster and backends) dies with it
      const pg = s.postgres && isAlive(s.postgres.pid) ? [s.postgres.pid, ...descendants(s.postgres.pid)] : [];
      const at = Date.now();
      // the container's first process from the host: it is the container's init, so the kernel ends the rest of it
      signalAll([pid], signal);
      signalAll(pg, signal);
      await waitGone(pid, GONE_TIMEOUT_MS);
      await Promise.all(pg.map((p) => waitGone(p, GONE_TIMEOUT_MS)));
      pids.delete(index);
      return { at };
    },
    async restart(index) {
      let s = state();
      const node = s.nodes[index];
      if (!node) throw new TargetError(`node: ${index} is not a node of run ${runId}`);
      const running = pids.get(index);
      if (running && isAlive(running)) {
        signalAll([running], "SIGKILL");
        await waitGone(running, GONE_TIMEOUT_MS);
      }
      if (s.postgres && !isAlive(s.postgres.pid)) {
        clearStaleLock(s.postgres.dir);
        const postgres = await startRunPostgres(runId, manifest, { keepData: true, onProgress: opts.onProgress, ...(cpus ? { cpus } : {}) });
        s = { ...s, postgres };
        writeContainerState(s);
      }
      const launched = await launchNode(s, manifest, index, node.port, { truncateLog: false, onProgress: opts.onProgress, ...(cpus ? { cpus } : {}) });
      writeContainerState({ ...s, nodes: s.nodes.map((n) => (n.index === index ? launched.node : n)), killed: s.killed.filter((i) => i !== index) });
      await waitHealthy(launched.node.url + manifest.health, launched.exited, support.restartTimeoutSeconds * 1000, launched.node.log);
      if (index === 0) exited = launched.exited;
      await refreshPid(index, launched.node.container);
      touched = false;
    },
    async addNode() {
      throw new TargetError(`the container provider runs ${manifest.name} as one container; adding a node (scale-up, scalability) needs the local provider or a cluster`);
    },
    placeOn(list) {
      cpus = list;
    },
    exited() {
      if (!touched) return exited();
      return undefined;
    },
    pids() {
      const s = readContainerState(runId);
      return [...[...pids.values()].filter(isAlive), ...(s?.postgres && isAlive(s.postgres.pid) ? [s.postgres.pid] : [])];
    },
    cgroupCpuSeconds() {
      return [...pids.values()].reduce((sum, pid) => sum + (cgroupCpuSeconds(pid) ?? 0), 0);
    },
    logs() {
      return (readContainerState(runId)?.nodes ?? started.nodes).map((n) => n.log);
    },
  };
}
