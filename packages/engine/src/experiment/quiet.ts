/**
 * Quiet time between load steps: the step after an overload inherits its
 * drain (queued work, a garbage collection, a checkpoint) unless the target
 * is given time to settle. Waits until the target's processes use less than
 * `cpuShare` of a core over half a second, at most `maxS`; a target given by
 * URL (no processes to watch) gets the minimum wait.
 */
import { ProcessSampler } from "../cost/sampler.ts";

export interface QuietPlan {
  /** never wait longer than this */
  maxS: number;
  /** settled: the target's trees used less than this share of one core over the last interval */
  cpuShare: number;
}

export interface QuietOutcome {
  /** seconds waited */
  seconds: number;
  /**
   * false: the wait ran out with the target still above the share, so what
   * follows starts on its backlog (a target given by URL counts as settled:
   * nothing of it can be watched)
   */
  settled: boolean;
  /** cores the target used over the last interval watched (absent: not watched) */
  cores?: number;
}

const INTERVAL_MS = 500;

export async function waitQuiet(plan: QuietPlan, targetPids: () => number[], signal?: AbortSignal): Promise<QuietOutcome> {
  const t0 = performance.now();
  const elapsedS = () => (performance.now() - t0) / 1000;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  if (plan.maxS <= 0) return { seconds: 0, settled: true };
  if (targetPids().length === 0) {
    await sleep(Math.min(plan.maxS * 1000, INTERVAL_MS));
    return { seconds: elapsedS(), settled: true };
  }
  let cores: number | undefined;
  let settled = false;
  while (elapsedS() < plan.maxS && !signal?.aborted) {
    const sampler = new ProcessSampler({ target: targetPids });
    sampler.start();
    await sleep(Math.min(INTERVAL_MS, Math.max(50, (plan.maxS - elapsedS()) * 1000)));
    const usage = sampler.stop();
    cores = usage.wallSeconds > 0 ? usage.groups.target!.cpuSeconds / usage.wallSeconds : 0;
    if (cores < plan.cpuShare) {
      settled = true;
      break;
    }
  }
  return { seconds: Math.round(elapsedS() * 1000) / 1000, settled, ...(cores !== undefined ? { cores: Math.round(cores * 1000) / 1000 } : {}) };
}
