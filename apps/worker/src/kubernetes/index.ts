/**
 * The worker's kubernetes provider (docs/cluster.md): createClusterProvider()
 * builds it from the cluster configuration (./env.ts) with the real Pulumi
 * Automation API and kubectl; without a configuration runs that need a cluster
 * stay needs_cluster with needsClusterMessage().
 */
import { join } from "node:path";
import type { Db } from "@sfbench/db";
import { kubectlApi } from "./cluster-api.ts";
import type { ClusterEnv } from "./env.ts";
import { runOnCluster, type ClusterDeps, type ClusterOutcome, type ClusterRun } from "./provider.ts";
import { pulumiStacks, StackOwners } from "./stacks.ts";
import { sweepClusterStacks, type ClusterSweepReport } from "./sweep.ts";

export { readClusterEnv, CLUSTER_ENV_VARS, type ClusterEnv } from "./env.ts";
export {
  runOnCluster,
  rampRates,
  rampCell,
  K6_RUNNER_IMAGE,
  type ClusterRun,
  type ClusterDeps,
  type ClusterOutcome,
  type ConformanceSummary,
} from "./provider.ts";
export { sweepClusterStacks, type ClusterSweepReport } from "./sweep.ts";
export { pulumiStacks, StackOwners, stackName, runIdOfStack, type RunStack, type RunStacks, type RunStackOutputs } from "./stacks.ts";
export { kubectlApi, type ClusterApi, type Forward } from "./cluster-api.ts";
export { splitRunnerLog, writeRunnerOutput, RunnerLogError } from "./runner-log.ts";
export { k6Archive } from "./archive.ts";
export { needsClusterMessage } from "./message.ts";
export { runNeedingCluster, type ClusterBranchInput, type ClusterBranchOutcome } from "./branch.ts";

export interface ClusterProviderOptions {
  k6: string;
  repoRoot: string;
  resultsDir: string;
  rawRoot: string;
  /** the sfbench home (.sfbench): the default Pulumi backend (file://<home>/pulumi) and the stacks' owner records live here */
  home: string;
  log?: (line: string) => void;
}

export interface ClusterProvider {
  /** one run on the cluster; the stack is destroyed before this resolves (or left to the sweep when destroy failed) */
  run(run: ClusterRun, opts: Pick<ClusterDeps, "verify" | "onStage" | "signal">): Promise<ClusterOutcome>;
  /** the start-up sweep's cluster part: destroys the stacks of runs no live worker owns */
  sweep(): Promise<ClusterSweepReport>;
}

export function createClusterProvider(env: ClusterEnv, opts: ClusterProviderOptions): ClusterProvider {
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
  return {
    run: (run, o) =>
      runOnCluster(
        {
          env,
          stacks,
          cluster,
          owners,
          k6: opts.k6,
          repoRoot: opts.repoRoot,
          resultsDir: opts.resultsDir,
          rawRoot: opts.rawRoot,
          ...(opts.log ? { log: opts.log } : {}),
          ...o,
        },
        run,
      ),
    sweep: () => sweepClusterStacks({ stacks, owners, ...(opts.log ? { log: opts.log } : {}) }),
  };
}

/** After a sweep: runs whose stacks it destroyed and that are still queued or running ended with their worker. */
export async function interruptSweptRuns(db: Db, report: ClusterSweepReport): Promise<string[]> {
  const ended: string[] = [];
  for (const runId of report.destroyed) {
    const run = await db.run.findUnique({ where: { id: runId }, select: { status: true, stage: true } });
    if (!run || (run.status !== "running" && run.status !== "queued")) continue;
    const stage = run.stage ?? "provision";
    await db.run.update({
      where: { id: runId },
      data: {
        status: "interrupted",
        errorStage: stage,
        errorMessage: `worker lost during ${stage}: its cluster stack was destroyed by the start-up sweep`,
        finishedAt: new Date(),
        stage: null,
      },
    });
    ended.push(runId);
  }
  return ended;
}
