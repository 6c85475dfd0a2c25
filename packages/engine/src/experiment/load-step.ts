/** One k6 run of a cell's workload at one arrival rate, with the generator's CPU (and, when asked, the target's) sampled. */
import { REJECTIONS, SUSTAINABLE, type SustainableCriteria, type Workload } from "@sfbench/core";
import { aggregateK6 } from "../analysis/aggregate.ts";
import { readAuditRecords } from "../audit/records.ts";
import { cpuBetween, ProcessSampler, type SamplerResult } from "../cost/sampler.ts";
import { progress, StageError, type CellPlan, type LoadOutcome, type RunContext } from "./phase.ts";

/** The request whose latency and rate a workload measures. */
export const MEASURED: Record<Workload, "checkout" | "freq-items"> = { checkout: "checkout", contention: "checkout", analytics: "freq-items" };

/** k6's VU pool at an offered rate: room for iterations of 4 s on average */
export function maxVus(rate: number): number {
  return Math.max(100, Math.ceil(rate * 4));
}

/**
 * The VUs k6 initialises before a step's clock starts: room for iterations of
 * 2.5 s on average. A checkout iteration is about nine requests in a row, and
 * near a knee it took 0.35 s on average and 0.8 s at most: a pool of 0.5 s
 * ran dry in its bursts, k6 added VUs mid-step and dropped 1-3% of the step's
 * iterations while it did, and half the trials of two campaigns were invalid.
 * A pool of 1.5 s still ran dry where a target stalled for a moment and then
 * caught up (statefun at 153/s served 98.8% and k6 dropped 3.9%): during a
 * stall real users keep arriving, so k6 must have VUs to keep arriving too.
 * A VU costs k6 about 0.4 MB and 2 ms of start-up (1,000 VUs: 430 MB, 1 s).
 */
export function preVus(rate: number): number {
  return Math.max(10, Math.ceil(rate * 2.5));
}

/**
 * Whether the target answered in time for k6's VUs to keep up: its measured
 * request's p99 within the bound, and its iterations (setup requests
 * included) short enough that, by Little's law, rate x mean iteration time
 * stayed below most of the VUs initialised before the step. When not, the
 * pool had to grow during the step because the target slowed down, and the
 * iterations dropped while k6 added VUs are the target's slowness, not a
 * generator that fell behind.
 *
 * A step that fell short of its offered rate by more than its drops explain
 * is the target's too: served share plus dropped share still under the
 * sustainable share, or errors over the bound, is a verdict the drops did not
 * decide. An overloaded target's queue grows through the step (node-postgres
 * at 91.7/s: iterations from 30 ms to 2.2 s in 10 s, 83% served, 2.3%
 * dropped at its end), and a mean over the step hides it. A generator
 * starved by other work on the machine is no excuse here: that is the
 * trial's noise, measured apart (a busy trial is marked and repeated).
 */
export function targetAnsweredInTime(
  step: {
    offeredRate: number | null;
    meanIterationS: number | null;
    latency: { count: number; p99: number };
    droppedShare?: number;
    errorRate?: number;
    completedShare?: number | null;
    window?: { completedShare: number | null };
  },
  boundMs: number,
  criteria: Pick<SustainableCriteria, "minCompletedShare" | "maxErrorRate"> = SUSTAINABLE,
): boolean {
  if (step.latency.count === 0 || !(step.latency.p99 < boundMs)) return false;
  if (step.errorRate !== undefined && !(step.errorRate < criteria.maxErrorRate)) return false;
  const served = step.window ? step.window.completedShare : step.completedShare;
  if (served != null && step.droppedShare !== undefined && served + step.droppedShare < criteria.minCompletedShare) return false;
  if (step.offeredRate === null || step.meanIterationS === null) return true;
  return step.offeredRate * step.meanIterationS < 0.8 * preVus(step.offeredRate);
}

/**
 * A group's CPU seconds while the step's requests ran, from the first
 * request's start to k6's last sample, and that window's length; undefined
 * when the sampler saw too little of the step to read a window, or counted the
 * group by a counter of its own (a container's cgroup, read at its ends only).
 * k6 starts the step's VU pool before the step's clock (room for 2.5 s of
 * iterations: about 1,100 VUs at 450/s, a second or more of its core at full
 * use) and the target idles meanwhile: neither is the load's cost.
 */
export function cpuOver(usage: SamplerResult, group: string, window: { startMs: number; endMs: number }): { cpuSeconds: number; seconds: number } | undefined {
  const series = usage.series[group] ?? [];
  const seconds = (window.endMs - window.startMs) / 1000;
  if (series.length < 2 || seconds < 1 || window.startMs < series[0]!.t || window.endMs > series[series.length - 1]!.t) return undefined;
  return { cpuSeconds: Math.max(0, cpuBetween(series, window.startMs, window.endMs)), seconds };
}

/**
 * The target's CPU seconds while the step's requests ran (cpuOver), over the
 * whole step when no window can be read (a target counted by its container's
 * cgroup); undefined when the step did not sample the target.
 */
export function targetCpu(usage: SamplerResult | undefined, window: { startMs: number; endMs: number }): { cpuSeconds: number; seconds: number } | undefined {
  if (!usage?.groups.target) return undefined;
  return cpuOver(usage, "target", window) ?? { cpuSeconds: usage.groups.target.cpuSeconds, seconds: usage.wallSeconds };
}

/**
 * The generator's share of its cores while the step's requests ran (cpuOver):
 * counted over the whole process, the VU pool's start raised the share of
 * every fast step toward the saturation limit. The whole process's share when
 * no window can be read.
 */
export function generatorShare(usage: SamplerResult, window: { startMs: number; endMs: number }, cores: number): number {
  const over = cpuOver(usage, "generator", window);
  if (over) return over.cpuSeconds / (over.seconds * cores);
  return usage.groups.generator!.cpuSeconds / (usage.wallSeconds * cores);
}

function scriptEnv(ctx: RunContext, cell: CellPlan, rate: number, durationS: number, traced: boolean): Record<string, string> {
  return {
    // the traceparent's sampled flag: only the traced phase's requests make a traced target write spans
    TRACED: traced ? "1" : "0",
    BASE_URL: ctx.baseUrl,
    SEED: String(ctx.seed),
    PRODUCTS: String(ctx.settings.products),
    PRODUCT_PREFIX: ctx.productPrefix,
    DISTRIBUTION: cell.distribution,
    STEPS: JSON.stringify([{ rate, duration: durationS }]),
    // VUs are initialised before the clock starts; growing the pool mid-step drops iterations
    PRE_VUS: String(preVus(rate)),
    MAX_VUS: String(maxVus(rate)),
  };
}

export interface LoadStep {
  rate: number;
  durationS: number;
  /** file stem of the raw output */
  name: string;
  /** the stage a failure is reported in (the run document's error.stage) */
  stage: string;
  /** the progress event's phase and detail */
  phase: "ramp" | "stable" | "traced" | "fault" | "scale-up";
  detail: string;
  /** sample the target's processes too (the cost figures) */
  sampleTarget: boolean;
  /** send sampled traceparents (the traced phase); default false: the target writes no spans */
  traced?: boolean;
}

export async function runLoadStep(ctx: RunContext, cell: CellPlan, s: LoadStep): Promise<LoadOutcome> {
  ctx.checkAlive(s.stage);
  let generatorPid: number | undefined;
  const cost = ctx.target?.cost;
  const sampler = new ProcessSampler(
    {
      generator: () => (generatorPid ? [generatorPid] : []),
      ...(s.sampleTarget ? { target: ctx.targetPids } : {}),
    },
    undefined,
    s.sampleTarget && cost ? { target: () => cost.cpuSeconds() } : {},
  );
  sampler.start();
  const out = await ctx.generator({
    k6: ctx.k6,
    script: cell.workload,
    env: scriptEnv(ctx, cell, s.rate, s.durationS, s.traced ?? false),
    outDir: ctx.rawDir,
    name: s.name,
    cpus: ctx.split?.generator,
    onStart: (pid) => (generatorPid = pid),
    signal: ctx.signal,
    onTick: (live) => progress(ctx, cell, s.phase, s.detail, { offeredRate: s.rate, stepS: s.durationS, live }),
  });
  const usage = sampler.stop();
  ctx.rawFiles.push(out.csv, out.console);
  ctx.checkAlive(s.stage);
  if (out.exitCode !== 0)
    throw new StageError(s.stage, `k6 exited with code ${out.exitCode} running ${cell.workload} at ${s.rate}/s: ${out.stderrTail || "(no output)"}`);
  const op = MEASURED[cell.workload];
  const agg = await aggregateK6(out.csv, { op, stepRates: [s.rate], stepDurationsS: [s.durationS], rejections: REJECTIONS[cell.workload] });
  const step = agg.steps[0];
  if (!step) throw new StageError(s.stage, `k6 recorded no ${op} request at ${s.rate}/s (raw data: ${out.csv})`);
  const records = await readAuditRecords(out.console);
  const stockAdded = new Map<string, number>();
  for (const p of records.products) {
    stockAdded.set(p.product, (stockAdded.get(p.product) ?? 0) + p.stockAdded);
    ctx.prices.set(p.product, p.price);
  }
  const genCores = ctx.split?.generatorCores;
  const generatorCpuShare = genCores ? generatorShare(usage, agg, genCores) : undefined;
  return { agg, csv: out.csv, step, checkouts: records.checkouts, stockAdded, generatorCpuShare, usage: s.sampleTarget ? usage : undefined };
}
