/**
 * The kubernetes provider on a real cluster (docs/cluster.md):
 * createClusterProvider() builds it from the operator's configuration
 * (./env.ts) with the real Pulumi Automation API and kubectl. Without a
 * configuration, runs that need a cluster stay needs_cluster with
 * needsClusterMessage().
 */
import { join } from "node:path";
import { kubectlApi } from "./cluster-api.ts";
import type { ClusterEnv } from "./env.ts";
import { clusterTargetProvider, type ClusterDeps } from "./provider.ts";
import { pulumiStacks, StackOwners } from "./stacks.ts";
import { sweepClusterStacks } from "./sweep.ts";
import type { ClusterPlace } from "../place.ts";

export { readClusterEnv, readClusterSetting, CLUSTER_ENV_VARS, type ClusterEnv, type ClusterSetting } from "./env.ts";
export { clusterTargetProvider, clusterPlace, ClusterProvisionError, type ClusterRun, type ClusterDeps } from "./provider.ts";
export { clusterGenerator, K6_RUNNER_IMAGE, plannedSeconds } from "./generator.ts";
export { runnersFor, testRunName } from "../testrun.ts";
export { clusterTargetControl, TARGET_PODS, SERVICE_PODS, type ClusterTargetControl } from "./control.ts";
export { sweepClusterStacks, type ClusterSweepReport } from "./sweep.ts";
export { pulumiStacks, StackOwners, stackName, runIdOfStack, type RunStack, type RunStacks, type RunStackOutputs } from "./stacks.ts";
export { kubectlApi, parseCgroupCpu, parsePodList, type ClusterApi, type Forward, type PodState } from "./cluster-api.ts";
export { splitRunnerLog, writeRunnerOutput, RunnerLogError } from "./runner-log.ts";
export { k6Archive } from "./archive.ts";
export { needsClusterMessage } from "./message.ts";

export interface ClusterProviderOptions {
  k6: string;
  /** the sfbench home (.sfbench): the default Pulumi backend (file://<home>/pulumi) and the stacks' owner records live here */
  home: string;
  log?: (line: string) => void;
}

/** A real cluster as the place runs that need one go to. */
export function createClusterProvider(env: ClusterEnv, opts: ClusterProviderOptions): ClusterPlace {
  const stacks = pulumiStacks({
    backend: env.pulumiBackend ?? `file://${join(opts.home, "pulumi")}`,
    passphrase: env.pulumiPassphrase,
    onOutput: (line) => opts.log?.(line.trimEnd()),
  });
  const cluster = kubectlApi({
    kubectl: env.kubectl,
    kubeconfigPath: env.kubeconfigPath,
    ...(env.cluster.kind === "kubeconfig" && env.cluster.context ? { context: env.cluster.context } : {}),
  });
  const owners = new StackOwners(join(opts.home, "cluster-stacks"));
  const deps: ClusterDeps = { env, stacks, cluster, owners, k6: opts.k6, ...(opts.log ? { log: opts.log } : {}) };
  return {
    describe: env.cluster.kind === "gke" ? `GKE ${env.cluster.project}/${env.cluster.zone}` : "the cluster of SFBENCH_KUBECONFIG",
    provider: (run) => clusterTargetProvider(deps, run),
    sweep: async () => (await sweepClusterStacks({ stacks, owners, ...(opts.log ? { log: opts.log } : {}) })).destroyed,
  };
}
