/**
 * The experiment engine's hands on a played run (core's TargetControl, as
 * provider-local's and provider-container's): `kill` is `podman pod kill` of
 * a target pod, `restart` is `podman pod start` of it (its state is in the
 * PostgreSQL pod, which a target pod's kill does not touch, as on a cluster
 * where the database is a Deployment of its own), and the cost's roots are
 * the first process of every container the run played (the target's and its
 * services': every process of a container descends from it), read from /proc
 * by the same sampler as a local target's.
 *
 * One target pod: the run's URL is the target pod's published port, and
 * nothing balances between several (kube play has no Services), so a played
 * run has one node and cannot add one.
 */
import { nodeSupport, type Environment, type TargetControl, type TargetManifest } from "@sfbench/core";
import { podman } from "@sfbench/provider-container";
import { isAlive, waitGone } from "@sfbench/provider-local";
import { TargetError } from "@sfbench/catalogue";
import type { PlayedRun } from "./play.ts";

const GONE_TIMEOUT_MS = 10_000;
const HEALTH_POLL_MS = 500;

export interface KubePlayTargetControl extends TargetControl {
  runId: string;
  /** how a target pod died when it was not killed on purpose; undefined while it runs */
  exited(): string | undefined;
  /** the first process of every played container: the cost's roots */
  pids(): number[];
}

async function containerPid(container: string): Promise<number | undefined> {
  const pid = Number((await podman(["inspect", "--format", "{{.State.Pid}}", container])).stdout.trim());
  return pid > 0 ? pid : undefined;
}

export async function kubePlayTargetControl(
  played: PlayedRun,
  manifest: TargetManifest,
  opts: { onProgress?: (m: string) => void } = {},
): Promise<KubePlayTargetControl> {
  const support = nodeSupport(manifest);
  const targetPods = played.doc.pods.filter((p) => p.from === "target");
  const containers = played.doc.pods.flatMap((p) => p.containers);
  const pids = new Map<string, number>();
  const refresh = async (names: string[]) => {
    for (const c of names) {
      const pid = await containerPid(c);
      if (pid) pids.set(c, pid);
      else pids.delete(c);
    }
  };
  await refresh(containers);
  const killed = new Set<number>();
  const podOf = (index: number) => {
    const pod = targetPods[index];
    if (!pod) throw new TargetError(`node: ${index} is not a target pod of run ${played.runId} (allowed: 0..${targetPods.length - 1})`);
    return pod;
  };
  const health = `${played.url}${manifest.health}`;
  return {
    runId: played.runId,
    manifest,
    maxNodes: targetPods.length,
    elastic: false,
    nodes: () => targetPods.length,
    async kill(index, signal) {
      const pod = podOf(index);
      const running = pod.containers.map((c) => pids.get(c)).filter((p): p is number => p !== undefined && isAlive(p));
      if (running.length === 0) throw new TargetError(`${pod.pod} is not running`);
      killed.add(index);
      const at = Date.now();
      await podman(["pod", "kill", "--signal", signal, pod.pod]);
      await Promise.all(running.map((p) => waitGone(p, GONE_TIMEOUT_MS)));
      // podman records the exit after the process is gone; a `pod start` before that finds the container still running and starts nothing
      await podman(["wait", ...pod.containers], { timeoutMs: GONE_TIMEOUT_MS });
      for (const c of pod.containers) pids.delete(c);
      return { at };
    },
    async restart(index) {
      const pod = podOf(index);
      opts.onProgress?.(`podman pod start ${pod.pod}`);
      await podman(["pod", "start", pod.pod]).catch(async (e: Error) => {
        // the kill's network teardown can fail half-way (netavark: "failed to delete container veth eth0") and leave the
        // container's own address allocated to it; a stop runs the cleanup again and frees it, then the start takes it
        if (!/IPAM error: requested ip address \S+ is already allocated to container/.test(e.message)) throw e;
        opts.onProgress?.(`podman pod stop ${pod.pod}: its address was still held by its killed containers`);
        await podman(["pod", "stop", pod.pod]);
        await podman(["pod", "start", pod.pod]);
      });
      const deadline = performance.now() + support.restartTimeoutSeconds * 1000;
      for (;;) {
        const ok = await fetch(health, { signal: AbortSignal.timeout(HEALTH_POLL_MS * 4) }).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) break;
        if (performance.now() > deadline) throw new TargetError(`${pod.pod} did not answer ${health} within ${support.restartTimeoutSeconds} s of its restart`);
        await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
      }
      await refresh(pod.containers);
      killed.delete(index);
    },
    addNode() {
      return Promise.reject(
        new TargetError(`a run played by podman kube play has ${targetPods.length} target pod(s) and cannot add one: nothing would balance requests to it`),
      );
    },
    exited() {
      for (const [i, pod] of targetPods.entries()) {
        if (killed.has(i)) continue;
        const dead = pod.containers.find((c) => !pids.has(c) || !isAlive(pids.get(c)!));
        if (dead) return `${dead}: its process is gone`;
      }
      return undefined;
    },
    pids: () => [...pids.values()].filter(isAlive),
  };
}

/** The played PostgreSQL's durability settings as the server reports them (the result's environment), when the run has one. */
export async function playedStorage(played: PlayedRun): Promise<Environment["storage"] | undefined> {
  const pg = played.doc.pods.find((p) => p.from === "postgres");
  if (!pg) return undefined;
  const sql = "select current_setting('fsync'), current_setting('synchronous_commit'), current_setting('full_page_writes'), current_setting('server_version')";
  const [fsync, synchronous_commit, full_page_writes, version] = (
    await podman(["exec", pg.containers[0]!, "psql", "-U", "postgres", "-AtF", "\t", "-c", sql])
  ).stdout
    .trim()
    .split("\t");
  return {
    postgres: { instance: "dedicated", fsync: fsync!, synchronous_commit: synchronous_commit!, full_page_writes: full_page_writes!, version: version! },
  };
}
