/**
 * The start-up sweep: a worker that died mid-run (SIGKILL, power loss) left
 * its run marked running, its target process, and maybe k6 processes. Before
 * taking jobs, the next worker on the machine ends that run as interrupted
 * ("worker lost during <stage>": the worker failed, not the target) and
 * removes what it left behind: its target's processes, its k6 processes, and
 * the containers of a run from a submitted image (labelled with the run id).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "@sfbench/db";
import { runContainers, teardownRun } from "@sfbench/provider-container";
import { stopTarget } from "@sfbench/provider-local";
import { paths } from "@sfbench/services";
import type { ClusterPlace } from "@sfbench/provider-kubernetes";
import { kubePlayHome } from "@sfbench/provider-kubernetes/kube-play/home";
import { clearLock, deadLock, type RunLock } from "./run-lock.ts";

export interface SweepReport {
  run?: string;
  stage?: string | null;
  targetStopped: boolean;
  processesKilled: number;
  /** the lost run's containers (a submitted image's), removed */
  containersRemoved?: string[];
  /** the cluster part (a worker with a cluster): the runs whose stacks it destroyed, and those of them it ended as interrupted */
  cluster?: { destroyed: string[]; interrupted: string[] };
}

/** Kills processes whose command line mentions the run's raw-data folder (k6 runs of that run). */
function killRunProcesses(runId: string): number {
  let killed = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (!cmdline.includes(`/runs/${runId}/`)) continue;
    try {
      process.kill(Number(name), "SIGKILL");
      killed++;
    } catch {
      // gone already
    }
  }
  return killed;
}

export async function sweep(db: Db, cluster?: ClusterPlace): Promise<SweepReport> {
  const local = await sweepLocal(db);
  if (!cluster) return local;
  const destroyed = await cluster.sweep();
  const interrupted = await interruptSweptRuns(db, destroyed);
  return { ...local, cluster: { destroyed, interrupted } };
}

/** After a sweep: runs whose stacks it destroyed and that are still queued or running ended with their worker. */
export async function interruptSweptRuns(db: Db, runIds: readonly string[]): Promise<string[]> {
  const ended: string[] = [];
  for (const runId of runIds) {
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

async function sweepLocal(db: Db): Promise<SweepReport> {
  const lost = deadLock();
  if (!lost) return { targetStopped: false, processesKilled: 0 };
  const report = await sweepLostRun(db, lost);
  clearLock();
  return report;
}

/**
 * Ends one lost run (the record of the lock its worker died holding) and
 * removes what it left: k6 processes, the bundled target's processes, and a
 * container run's containers, PostgreSQL and state (teardownRun by run id:
 * nothing happens for a run that had none), and a played cluster's pods,
 * volumes and network (downRun, likewise). The lock itself is the caller's.
 */
export async function sweepLostRun(db: Db, lost: RunLock): Promise<SweepReport> {
  const processesKilled = killRunProcesses(lost.runId);
  const targetStopped = await stopTarget(lost.target);
  const containers = await runContainers(lost.runId).catch(() => [] as string[]);
  // the node logs stay with the run's raw files, as after a run that ended
  await teardownRun(lost.runId, { logsTo: join(paths.home, "runs", lost.runId) });
  // only a run that played a cluster has its folder; a worker without podman never calls it
  if (existsSync(join(kubePlayHome(), lost.runId))) await (await import("@sfbench/provider-kubernetes/kube-play")).downRun(lost.runId);
  const run = await db.run.findUnique({ where: { id: lost.runId }, select: { status: true, stage: true } });
  if (run && (run.status === "running" || run.status === "queued")) {
    await db.run.update({
      where: { id: lost.runId },
      data: {
        status: "interrupted",
        errorStage: run.stage ?? "provision",
        errorMessage: `worker lost during ${run.stage ?? "provision"} (its process ${lost.pid} ended mid-run)`,
        finishedAt: new Date(),
        stage: null,
      },
    });
  }
  return { run: lost.runId, stage: run?.stage, targetStopped, processesKilled, containersRemoved: containers };
}
