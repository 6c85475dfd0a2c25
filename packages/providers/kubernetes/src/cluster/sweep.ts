/**
 * The cluster part of the start-up sweep: every run's stack in the backend
 * whose owner is gone (no owner record, or one naming a dead process: the
 * worker was SIGKILLed between up and destroy, or its destroy failed) is
 * destroyed and removed, keyed by run id; a stack that a live worker process
 * owns is left alone. Idempotent: a second sweep finds nothing, and a stack
 * whose resources are already gone destroys as a no-op.
 */
import type { RunStacks, StackOwners } from "./stacks.ts";
import { runIdOfStack } from "./stacks.ts";

export interface ClusterSweepReport {
  /** run ids whose stacks were destroyed and removed */
  destroyed: string[];
  /** run ids whose stacks a live worker owns */
  skipped: string[];
  /** run id -> why destroying its stack failed (it stays for the next sweep) */
  failed: Record<string, string>;
}

export interface ClusterSweepDeps {
  stacks: RunStacks;
  owners: StackOwners;
  /** whether a process is alive (default: signal 0) */
  isAlive?: (pid: number) => boolean;
  log?: (line: string) => void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export async function sweepClusterStacks(deps: ClusterSweepDeps): Promise<ClusterSweepReport> {
  const isAlive = deps.isAlive ?? alive;
  const report: ClusterSweepReport = { destroyed: [], skipped: [], failed: {} };
  const names = await deps.stacks.list();
  for (const name of names) {
    const runId = runIdOfStack(name);
    if (!runId) continue; // not a run's stack
    const pid = deps.owners.owner(runId);
    if (pid !== undefined && pid !== process.pid && isAlive(pid)) {
      report.skipped.push(runId);
      continue;
    }
    try {
      const stack = await deps.stacks.open(runId);
      await stack.destroy();
      await deps.stacks.remove(stack.name);
      deps.owners.release(runId);
      report.destroyed.push(runId);
      deps.log?.(`sweep: destroyed the cluster stack ${name} of run ${runId}`);
    } catch (e) {
      report.failed[runId] = (e as Error).message;
      deps.log?.(`sweep: could not destroy the cluster stack ${name} of run ${runId}: ${(e as Error).message}`);
    }
  }
  // owner records of stacks that no longer exist (destroyed by hand) are stale
  const existing = new Set(names.map(runIdOfStack));
  for (const runId of deps.owners.runs()) {
    const pid = deps.owners.owner(runId);
    if (!existing.has(runId) && !(pid !== undefined && pid !== process.pid && isAlive(pid))) deps.owners.release(runId);
  }
  return report;
}
