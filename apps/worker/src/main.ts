/**
 * Entry point: env checked, start-up sweep, then the worker. SIGINT/SIGTERM
 * interrupt the running job (it stops its target and k6 and ends the run as
 * `interrupted`, not `failed`), wait for its teardown, then exit 0.
 */
import { join } from "node:path";
import { getDb } from "@sfbench/db";
import { k6Path, paths, redisUrl, up } from "@sfbench/services";
import { readEnv } from "./env.ts";
import { startDispatcher } from "./dispatcher.ts";
import { startReferenceSchedule } from "./reference-campaign.ts";
import { createRunQueue, redisConnection } from "./queue.ts";
import { createClusterProvider, readClusterSetting } from "@sfbench/provider-kubernetes/cluster";
import { sweep } from "./sweep.ts";
import { createWorker } from "./worker.ts";

const env = readEnv();
const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

if (!env.REDIS_URL) await up(["redis"]);
const db = await getDb();
const k6 = await k6Path();
const resultsDir = env.SFBENCH_RESULTS_DIR ?? join(paths.root, "results");
// where runs that need a cluster go: the operator's cluster, the cluster program played here, or nowhere (docs/cluster.md); a bad SFBENCH_* cluster variable stops the worker with its name
const setting = readClusterSetting();
const cluster =
  setting?.kind === "cluster"
    ? createClusterProvider(setting.env, { k6, home: paths.home, log })
    : setting?.kind === "kube-play"
      ? // the played cluster renders the run's program with Pulumi's SDK, seconds to load: only a worker that plays runs loads it
        (await import("@sfbench/provider-kubernetes")).createKubePlayPlace({ maxNodes: setting.maxNodes })
      : undefined;
log(
  cluster
    ? `runs that need a cluster go to ${cluster.describe}`
    : "no cluster configured: runs that need one wait as needs_cluster (SFBENCH_KUBECONFIG or SFBENCH_KUBE_PLAY=1; docs/cluster.md)",
);
const swept = await sweep(db, cluster);
if (swept.cluster) log(`sweep: cluster stacks destroyed ${swept.cluster.destroyed.length}, runs interrupted ${swept.cluster.interrupted.length}`);
if (swept.run)
  log(
    `sweep: run ${swept.run} was lost during ${swept.stage ?? "?"}: marked interrupted; target stopped: ${swept.targetStopped}; processes killed: ${swept.processesKilled}; containers removed: ${swept.containersRemoved?.length ?? 0}`,
  );

const connection = redisConnection(env.REDIS_URL ?? redisUrl());
const worker = createWorker({
  connection,
  queue: env.SFBENCH_QUEUE,
  db,
  k6,
  repoRoot: paths.root,
  resultsDir,
  rawRoot: join(paths.home, "runs"),
  targetsRoot: env.SFBENCH_TARGETS_DIR,
  cluster,
  log,
});
const queue = createRunQueue(connection, env.SFBENCH_QUEUE);
const stopDispatcher = startDispatcher(db, queue, { attempts: env.SFBENCH_WORKER_ATTEMPTS, log });
const stopReference = startReferenceSchedule(
  db,
  {
    everyHours: env.SFBENCH_REFERENCE_EVERY_HOURS,
    trials: env.SFBENCH_REFERENCE_TRIALS,
    profile: env.SFBENCH_REFERENCE_PROFILE,
    operatorEmail: env.SFBENCH_OPERATOR_EMAIL,
  },
  { log },
);
log(`worker ready on queue "${env.SFBENCH_QUEUE}" (pid ${process.pid})`);

let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (closing) return;
    closing = true;
    log(`${signal}: interrupting the current run (it ends as interrupted), then stopping`);
    await stopReference();
    await stopDispatcher();
    worker.cancelAllJobs(`the worker was stopped (${signal})`);
    await worker.close();
    await queue.close();
    await db.$disconnect();
    process.exit(0);
  });
}
