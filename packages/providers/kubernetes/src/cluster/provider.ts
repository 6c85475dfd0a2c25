/**
 * A target on a real cluster, as a TargetProvider: one Pulumi stack per run
 * id (infra/pulumi's program through the Automation API), handed to the
 * experiment engine like a local or a container target, so every phase
 * (knee with bisection and confirmation, stable load, cost, audit,
 * resilience, micro) runs unchanged and a cluster cell is judged and ranked
 * by the same rules.
 *
 *   start  `pulumi up` (namespace, the image as a Deployment of one pod per
 *          node, its services), a port-forward to the target's Service (how
 *          the engine's verify, seed checks and audit reach it), the control
 *          (kubectl: pods, delete, cgroup CPU) and the generator (k6-operator
 *          TestRuns, generator.ts)
 *   stop   the port-forward closed, `pulumi destroy` and the stack removed;
 *          idempotent, and a stack whose destroy failed is left to the
 *          start-up sweep (sweep.ts), keyed by run id
 *
 * No span shipper runs in the cluster, so a cluster run has no breakdown
 * (the provider gives no log); what else differs is in docs/cluster.md.
 */
import type { Environment, RunningTarget, TargetManifest, TargetProvider } from "@sfbench/core";
import type { RunStackConfigInput } from "@sfbench/infra-pulumi/config";
import { MACHINE_TYPES } from "@sfbench/infra-pulumi/machine";
import { k6Archive } from "./archive.ts";
import type { ClusterApi, Forward } from "./cluster-api.ts";
import { clusterTargetControl, type ClusterTargetControl } from "./control.ts";
import type { ClusterEnv } from "./env.ts";
import { clusterGenerator } from "./generator.ts";
import type { RunStack, RunStackOutputs, RunStacks, StackOwners } from "./stacks.ts";

export interface ClusterRun {
  runId: string;
  manifest: TargetManifest;
  /** target pods, one per node */
  nodes: number;
}

export interface ClusterDeps {
  env: ClusterEnv;
  stacks: RunStacks;
  cluster: ClusterApi;
  owners: StackOwners;
  /** the worker's k6: builds the archives */
  k6: string;
  /** default: k6Archive with deps.k6 */
  archive?: (script: Parameters<typeof k6Archive>[1], env: Record<string, string>) => Promise<string>;
  log?: (line: string) => void;
  /** TestRun status polling, ms (default 5000) */
  pollMs?: number;
  /** extra time a TestRun may take beyond its planned load, ms (default 15 min) */
  startupMarginMs?: number;
  /** ms between the control's cost and liveness readings (default 2000) */
  controlPollMs?: number;
}

/** A provision that cannot work on this cluster: the run fails with this message, at provision. */
export class ClusterProvisionError extends Error {}

/** The place as the result records it: the machine type's declared size (a cluster's nodes are not read from here). */
export function clusterPlace(env: ClusterEnv, nodes: number): Pick<Environment, "kind" | "machineType" | "cpuModel" | "cores" | "memoryBytes" | "os"> {
  const m = MACHINE_TYPES[env.machineType];
  return {
    kind: "kubernetes",
    machineType: env.machineType,
    cpuModel: `${env.machineType} (${m.vcpus} vCPUs, ${m.memoryGiB} GiB per node, declared)`,
    cores: m.vcpus * nodes,
    memoryBytes: m.memoryGiB * 2 ** 30 * nodes,
    os: env.cluster.kind === "gke" ? `GKE ${env.cluster.project}/${env.cluster.zone}` : "Kubernetes (kubeconfig)",
  };
}

function storageOf(outputs: RunStackOutputs): Environment["storage"] | undefined {
  const pg = outputs.storage.postgres;
  if (!pg) return undefined;
  return {
    postgres: {
      instance: "dedicated",
      fsync: pg.fsync ?? "on",
      synchronous_commit: pg.synchronous_commit ?? "on",
      full_page_writes: pg.full_page_writes ?? "on",
    },
  };
}

export function clusterTargetProvider(deps: ClusterDeps, run: ClusterRun): TargetProvider {
  const { manifest } = run;
  let nodes = run.nodes;
  let stack: RunStack | undefined;
  let forward: Forward | undefined;
  let control: ClusterTargetControl | undefined;
  let claimed = false;
  const base = (): RunStackConfigInput => ({
    runId: run.runId,
    cluster: deps.env.cluster,
    nodes,
    machineType: deps.env.machineType,
    target: {
      name: manifest.name,
      image: manifest.image ?? "",
      port: manifest.port,
      health: manifest.health,
      services: manifest.services,
      // no span shipper runs in the cluster: tracing would only cost the target CPU
      tracing: false,
    },
    durable: true,
  });
  async function start(onProgress: ((message: string) => void) | undefined): Promise<RunningTarget> {
    if (!manifest.image) throw new ClusterProvisionError("the manifest has no image: the kubernetes provider deploys the manifest's `image`");
    if (run.nodes > deps.env.maxNodes)
      throw new ClusterProvisionError(
        `the run asks for ${run.nodes} nodes; this server's cluster allows at most ${deps.env.maxNodes} (SFBENCH_CLUSTER_MAX_NODES)`,
      );
    deps.owners.claim(run.runId);
    claimed = true;
    onProgress?.(`pulumi up of the stack of run ${run.runId}`);
    stack = await deps.stacks.open(run.runId);
    const s = stack;
    const outputs = await s.up(base()).catch((e: Error) => {
      throw new ClusterProvisionError(`pulumi up failed: ${e.message}`);
    });
    forward = await deps.cluster.forward(outputs.namespace, "target", manifest.port);
    control = await clusterTargetControl({
      cluster: deps.cluster,
      namespace: outputs.namespace,
      manifest,
      nodes,
      scaleTo: async (n) => {
        nodes = n;
        await s.up(base());
      },
      ...(onProgress ? { onProgress } : {}),
      ...(deps.controlPollMs ? { pollMs: deps.controlPollMs } : {}),
    });
    const c = control;
    const generator = clusterGenerator({
      stack: s,
      cluster: deps.cluster,
      base,
      namespace: outputs.namespace,
      targetUrl: outputs.targetUrl,
      parallelism: deps.env.k6Parallelism,
      archive: deps.archive ?? ((script, env) => k6Archive(deps.k6, script, env)),
      ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
      ...(deps.startupMarginMs !== undefined ? { startupMarginMs: deps.startupMarginMs } : {}),
      ...(deps.log ? { log: deps.log } : {}),
    });
    const storage = storageOf(outputs);
    return {
      url: forward.url,
      // nothing of the target runs on this machine: the cost is the pods' cgroups (control.cost)
      pids: () => [],
      exited: () => c.exited(),
      ...(storage ? { storage } : {}),
      versions: [`image ${manifest.image}; pods ${outputs.resources.cpu} CPU, ${outputs.resources.memory}`],
      control: c,
      generator,
      environment: clusterPlace(deps.env, run.nodes),
    };
  }
  const provider: TargetProvider = {
    describe: `image ${manifest.image ?? "(none)"} on the cluster (${deps.env.machineType}, ${run.nodes} node${run.nodes === 1 ? "" : "s"})`,
    async start(opts): Promise<RunningTarget> {
      try {
        return await start(opts.onProgress);
      } catch (e) {
        // what the failed start created (a partial stack, a port-forward) goes now, not at the sweep
        await provider.stop();
        throw e;
      }
    },
    async stop() {
      control?.close();
      forward?.close();
      forward = undefined;
      if (!claimed) return;
      try {
        const s = stack ?? (await deps.stacks.open(run.runId));
        await s.destroy();
        await deps.stacks.remove(s.name);
      } catch (e) {
        // the run's numbers stand; its stack is the start-up sweep's to destroy
        deps.log?.(`run ${run.runId}: teardown failed, the start-up sweep will retry: ${(e as Error).message}`);
      } finally {
        // a stack left behind has no live owner now, so the sweep takes it
        deps.owners.release(run.runId);
        claimed = false;
      }
    },
  };
  return provider;
}
