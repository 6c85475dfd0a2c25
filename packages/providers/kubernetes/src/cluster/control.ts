/**
 * The experiment engine's hands on a cluster run (core's TargetControl, as
 * the local, container and kube-play providers have theirs):
 *
 * - kill: the pod of node `index` (the target's pods sorted by name) is
 *   deleted, with grace 0 for SIGKILL (its processes die at once, as kill -9
 *   of a local node) or the pod's grace period for SIGTERM.
 * - restart: the Deployment makes a new pod in the killed one's place by
 *   itself (a cluster does not wait to be asked); restart waits until the
 *   Deployment is back at its node count with every pod ready.
 * - addNode: the stack's node count + 1 through `pulumi up` (not `kubectl
 *   scale`: the next phase's `up` would scale it back), then the same wait.
 * - cost: every pod of the run but the load's (the target's and its
 *   services'), read from their cgroups every POLL_MS; a pod that goes away
 *   keeps its last reading, so the sum never decreases across a kill.
 * - exited: a target pod that restarted or failed while nobody killed it.
 */
import { nodeSupport, type TargetControl, type TargetCost, type TargetManifest } from "@sfbench/core";
import type { ClusterApi, PodState } from "./cluster-api.ts";

/** the program's labels (infra/pulumi target.ts, services.ts) */
export const TARGET_PODS = "app.kubernetes.io/component=target";
export const SERVICE_PODS = "app.kubernetes.io/component=service";
const POLL_MS = 2000;
const READY_POLL_MS = 1000;

export interface ClusterControlOptions {
  cluster: ClusterApi;
  namespace: string;
  manifest: TargetManifest;
  nodes: number;
  /** `pulumi up` of the stack with another node count; resolves when the Deployment has rolled out */
  scaleTo(nodes: number): Promise<void>;
  onProgress?: (message: string) => void;
  /** ms between cost and liveness readings (tests) */
  pollMs?: number;
}

export interface ClusterTargetControl extends TargetControl {
  exited(): string | undefined;
  /** stops the background readings */
  close(): void;
}

export async function clusterTargetControl(o: ClusterControlOptions): Promise<ClusterTargetControl> {
  const support = nodeSupport(o.manifest);
  let nodes = o.nodes;
  const lastCpu = new Map<string, number>();
  const gone = { cpu: 0 };
  /** pods deleted on purpose: their restarts and failures are the experiment's, not the target's */
  const killed = new Set<string>();
  let died: string | undefined;
  let restartsSeen = new Map<string, number>();

  const targetPods = async () => (await o.cluster.pods(o.namespace, TARGET_PODS)).filter((p) => !p.deleting).sort((a, b) => a.name.localeCompare(b.name));

  async function read(): Promise<void> {
    const pods = [...(await o.cluster.pods(o.namespace, TARGET_PODS)), ...(await o.cluster.pods(o.namespace, SERVICE_PODS))];
    const names = new Set(pods.map((p) => p.name));
    for (const [name, cpu] of lastCpu)
      if (!names.has(name)) {
        gone.cpu += cpu;
        lastCpu.delete(name);
      }
    await Promise.all(
      pods
        .filter((p) => p.phase === "Running")
        .map(async (p) => {
          const cpu = await o.cluster.cpuSeconds(o.namespace, p.name).catch(() => undefined);
          if (cpu !== undefined) lastCpu.set(p.name, Math.max(cpu, lastCpu.get(p.name) ?? 0));
        }),
    );
    const restarts = new Map<string, number>();
    for (const p of pods.filter((q) => !killed.has(q.name))) {
      restarts.set(p.name, p.restarts);
      if (died) continue;
      if (p.phase === "Failed") died = `pod ${p.name} failed`;
      else if (p.restarts > (restartsSeen.get(p.name) ?? p.restarts))
        died = `pod ${p.name} restarted${p.lastTermination ? ` (${p.lastTermination})` : ""} while nobody killed it`;
    }
    restartsSeen = restarts;
  }
  await read();
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    read()
      .catch((e: Error) => o.onProgress?.(`cluster: could not read the run's pods: ${e.message}`))
      .finally(() => (reading = false));
  }, o.pollMs ?? POLL_MS);
  timer.unref();

  async function waitReady(count: number, why: string): Promise<PodState[]> {
    const deadline = performance.now() + support.restartTimeoutSeconds * 1000;
    for (;;) {
      const pods = await targetPods();
      const ready = pods.filter((p) => p.ready);
      if (ready.length >= count) return ready;
      if (performance.now() > deadline)
        throw new Error(
          `${why}: ${ready.length} of ${count} target pods ready after ${support.restartTimeoutSeconds} s (${pods.map((p) => `${p.name} ${p.phase}`).join(", ")})`,
        );
      await new Promise((r) => setTimeout(r, READY_POLL_MS));
    }
  }

  const cost: TargetCost = { source: "cgroup", cpuSeconds: () => gone.cpu + [...lastCpu.values()].reduce((a, b) => a + b, 0) };
  return {
    manifest: o.manifest,
    maxNodes: support.max,
    elastic: support.elastic,
    nodes: () => nodes,
    async kill(index, signal) {
      const pods = await targetPods();
      const pod = pods[index];
      if (!pod) throw new Error(`node ${index}: the run has ${pods.length} target pods (${pods.map((p) => p.name).join(", ")})`);
      killed.add(pod.name);
      const at = Date.now();
      await o.cluster.deletePod(o.namespace, pod.name, signal === "SIGKILL" ? 0 : 30);
      o.onProgress?.(`deleted pod ${pod.name} (${signal === "SIGKILL" ? "grace 0" : "grace 30 s"}); its Deployment makes a new one`);
      return { at };
    },
    async restart() {
      await waitReady(nodes, "restart");
    },
    async addNode() {
      if (!support.elastic) throw new Error(`${o.manifest.name} declares no elastic nodes (target.json nodes.elastic)`);
      if (nodes >= support.max) throw new Error(`${o.manifest.name} runs at most ${support.max} nodes (target.json nodes.max)`);
      await o.scaleTo(nodes + 1);
      nodes += 1;
      await waitReady(nodes, "add node");
    },
    cost,
    exited: () => died,
    close: () => clearInterval(timer),
  };
}
