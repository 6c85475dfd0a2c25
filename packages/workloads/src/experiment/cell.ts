/**
 * One cell of a run (workload x distribution): max-throughput ramp, stable
 * load at 80% of the sustainable rate with cost sampling, then the audit.
 */
import type { Cell, MaxThroughput, SeriesPoint, StableLoad } from "@sfbench/core";
import { aggregateK6, type K6Aggregate, type StepAggregate } from "../analysis/aggregate.ts";
import { generatorSaturated, judgeStep, SUSTAINABLE } from "../analysis/metrics.ts";
import { peakThroughput, setupOpsResult, stableResult, stepResult } from "../analysis/result-parts.ts";
import { audit } from "../audit/audit.ts";
import { readAuditRecords, type CheckoutRecord } from "../audit/records.ts";
import { snapshotStock } from "../audit/audit.ts";
import type { CpuSplit } from "../cost/affinity.ts";
import { ProcessSampler, type SamplerResult } from "../cost/sampler.ts";
import { hotProductId, productId, soldOutProductId } from "../distributions.ts";
import { buildBreakdown, type ClientLatency, type MeasuredRequest } from "../trace/breakdown.ts";
import type { TraceSession, TraceWindow } from "../trace/session.ts";
import { findKnee } from "./knee.ts";
import { runK6, type LiveFigures, type Script } from "./k6-runner.ts";
import type { ProfileSettings } from "./profiles.ts";

export type Workload = "checkout" | "analytics" | "contention";
export type Distribution = "uniform" | "zipf";

/** An error that knows the stage it happened in (it ends up in the failed run's document). */
export class StageError extends Error {
  constructor(
    readonly stage: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A liveness check for the run: throws "target exited with <how> during <stage>"
 * once `exited` reports how the target's process ended.
 */
export function aliveCheck(exited: () => string | undefined): (stage: string) => void {
  return (stage) => {
    const how = exited();
    if (how) throw new StageError(stage, `target exited with ${how} during ${stage}`);
  };
}

export interface ProgressEvent {
  cell: string;
  stage: string;
  detail: string;
  offeredRate?: number;
  stepS?: number;
  live?: LiveFigures;
}

export interface RunContext {
  baseUrl: string;
  k6: string;
  seed: number;
  settings: ProfileSettings;
  rawDir: string;
  productPrefix: string;
  split?: CpuSplit;
  /** root pids of the target and of the services it uses; empty when unknown (a target given by URL) */
  targetPids: () => number[];
  /** throws a StageError when the target has died */
  checkAlive: (stage: string) => void;
  onProgress: (event: ProgressEvent) => void;
  /** every checkout of the run so far: co-purchase counts accumulate over the run */
  allCheckouts: CheckoutRecord[];
  /** product id -> price, from the seeding records */
  prices: Map<string, number>;
  /** raw files written so far (kept in the result document) */
  rawFiles: string[];
  /** the run's span topic, when the target writes spans and Kafka is up: the stable phase gets a breakdown */
  trace?: TraceSession;
  /** aborted when the run is interrupted: k6 is killed and checkAlive throws */
  signal?: AbortSignal;
}

const MEASURED: Record<Workload, "checkout" | "freq-items"> = { checkout: "checkout", contention: "checkout", analytics: "freq-items" };

interface PhaseOutcome {
  agg: K6Aggregate;
  step: StepAggregate;
  checkouts: CheckoutRecord[];
  stockAdded: Map<string, number>;
  generatorCpuShare?: number;
  usage?: SamplerResult;
}

function scriptEnv(ctx: RunContext, workload: Workload, distribution: Distribution, rate: number, durationS: number): Record<string, string> {
  return {
    BASE_URL: ctx.baseUrl,
    SEED: String(ctx.seed),
    PRODUCTS: String(ctx.settings.products),
    PRODUCT_PREFIX: ctx.productPrefix,
    DISTRIBUTION: distribution,
    STEPS: JSON.stringify([{ rate, duration: durationS }]),
    // VUs are initialised before the clock starts; growing the pool mid-step drops iterations
    PRE_VUS: String(Math.max(10, Math.ceil(rate * 0.25))),
    MAX_VUS: String(Math.max(100, Math.ceil(rate * 2.5))),
  };
}

/** One k6 run at one arrival rate, with the generator's CPU (and, when asked, the target's) sampled. */
async function phase(
  ctx: RunContext,
  cell: string,
  workload: Workload,
  distribution: Distribution,
  rate: number,
  durationS: number,
  name: string,
  stage: string,
  sampleTarget: boolean,
): Promise<PhaseOutcome> {
  ctx.checkAlive(stage);
  let generatorPid: number | undefined;
  const sampler = new ProcessSampler({
    generator: () => (generatorPid ? [generatorPid] : []),
    ...(sampleTarget ? { target: ctx.targetPids } : {}),
  });
  sampler.start();
  const out = await runK6({
    k6: ctx.k6,
    script: workload as Script,
    env: scriptEnv(ctx, workload, distribution, rate, durationS),
    outDir: ctx.rawDir,
    name,
    cpus: ctx.split?.generator,
    onStart: (pid) => (generatorPid = pid),
    signal: ctx.signal,
    onTick: (live) => ctx.onProgress({ cell, stage, detail: name, offeredRate: rate, stepS: durationS, live }),
  });
  const usage = sampler.stop();
  ctx.rawFiles.push(out.csv, out.console);
  ctx.checkAlive(stage);
  if (out.exitCode !== 0) throw new StageError(stage, `k6 exited with code ${out.exitCode} running ${workload} at ${rate}/s: ${out.stderrTail || "(no output)"}`);
  const agg = await aggregateK6(out.csv, { op: MEASURED[workload], stepRates: [rate], stepDurationsS: [durationS] });
  const step = agg.steps[0];
  if (!step) throw new StageError(stage, `k6 recorded no ${MEASURED[workload]} request at ${rate}/s (raw data: ${out.csv})`);
  const records = await readAuditRecords(out.console);
  const stockAdded = new Map<string, number>();
  for (const p of records.products) {
    stockAdded.set(p.product, (stockAdded.get(p.product) ?? 0) + p.stockAdded);
    ctx.prices.set(p.product, p.price);
  }
  const genCores = ctx.split?.generatorCores;
  const generatorCpuShare = genCores ? usage.groups.generator!.cpuSeconds / (usage.wallSeconds * genCores) : undefined;
  return { agg, step, checkouts: records.checkouts, stockAdded, generatorCpuShare, usage: sampleTarget ? usage : undefined };
}

/** Per-second series of phases run one after another, as one series. */
function concatSeries(aggs: K6Aggregate[]): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  for (const a of aggs) {
    const offset = out.length ? out[out.length - 1]!.t + 1 : 0;
    for (const p of a.perSecond) out.push({ ...p, t: p.t + offset });
  }
  return out;
}

/** The products whose stock the audit checks for a workload. */
function stockScope(ctx: RunContext, workload: Workload): string[] {
  if (workload === "contention") return [...Array.from({ length: 10 }, (_, i) => hotProductId(ctx.productPrefix, i)), soldOutProductId(ctx.productPrefix)];
  if (workload === "checkout") return Array.from({ length: ctx.settings.products }, (_, i) => productId(ctx.productPrefix, i));
  return [];
}

export async function runCell(ctx: RunContext, workload: Workload, distribution: Distribution): Promise<Cell> {
  const cell = `${workload}/${distribution}`;
  const s = ctx.settings;
  const file = (part: string) => `${workload}-${distribution}-${part}`;
  const scope = stockScope(ctx, workload);
  ctx.onProgress({ cell, stage: "snapshot", detail: `reading the stock of ${scope.length} products before the load` });
  const stockBefore = scope.length ? await snapshotStock(ctx.baseUrl, scope) : new Map<string, number>();

  // 1. Max throughput: stepped arrival rates, coarse, then bisection to the profile's resolution.
  const phases: PhaseOutcome[] = [];
  const knee = await findKnee({ ...s.knee }, async (rate, kind) => {
    const p = await phase(ctx, cell, workload, distribution, rate, s.stepS, file(`ramp-${phases.length}`), `ramp (${kind} step ${phases.length + 1} at ${rate}/s)`, false);
    phases.push(p);
    return { rate, sustainable: judgeStep(p.step).sustainable, generatorCpuShare: p.generatorCpuShare };
  });
  const ramp = phases.map((p) => p.agg);
  const peak = peakThroughput(phases.map((p) => p.step));
  const maxThroughput: MaxThroughput = {
    ...peak,
    sustainableRate: knee.sustainableRate,
    steps: phases.map((p, i) => stepResult({ ...p.step, scenario: `step_${i}` }, judgeStep(p.step).reasons)),
    knee: {
      stoppedBecause: knee.stoppedBecause,
      firstUnsustainableRate: knee.firstUnsustainableRate,
      resolution: knee.resolution,
      targetResolution: s.knee.fineSteps > 0 ? (s.knee.resolution ?? 0.1) : null,
    },
  };
  ctx.onProgress({
    cell,
    stage: "knee",
    detail: `sustainable ${knee.sustainableRate ?? "none"}/s, first unsustainable ${knee.firstUnsustainableRate ?? "none"}/s, resolution ${knee.resolution === null ? "none" : `${(knee.resolution * 100).toFixed(1)}%`} (${knee.stoppedBecause})`,
  });

  // 2. Stable load at 80% of the sustainable rate (or of the peak throughput when no step was sustainable).
  const basis = knee.sustainableRate ?? peak.maxMovingAvg10s;
  const stableRate = Math.max(1, Math.round(basis * s.stableShare));
  // Spans are shipped only in this window: the breakdown describes the stable phase.
  const traceWindow = await openTraceWindow(ctx, cell);
  let stable: PhaseOutcome;
  let stableStats: StableLoad;
  try {
    stable = await phase(ctx, cell, workload, distribution, stableRate, s.stableS, file("stable"), `stable load at ${stableRate}/s`, true);
    stableStats = stableResult(stable.agg);
  } catch (e) {
    await traceWindow?.abort();
    throw e;
  }
  const breakdown = traceWindow ? await stableBreakdown(ctx, cell, workload, traceWindow, stable, stableStats) : undefined;

  // 3. Cost of the target during the stable phase.
  const pids = ctx.targetPids();
  let cost: Cell["cost"];
  if (stable.usage && pids.length) {
    const t = stable.usage.groups.target!;
    const g = stable.usage.groups.generator!;
    const successful = stable.step.successful;
    const coresUsed = t.cpuSeconds / stable.usage.wallSeconds;
    cost = {
      coreSecondsPer1000: successful ? (t.cpuSeconds / successful) * 1000 : 0,
      throughputPerCore: coresUsed > 0 ? stable.step.achievedRate / coresUsed : 0,
      peakRssBytes: t.peakRssBytes,
      targetCpuSeconds: t.cpuSeconds,
      generatorCpuSeconds: g.cpuSeconds,
      generatorCpuShare: stable.generatorCpuShare ?? g.cpuSeconds / (stable.usage.wallSeconds * (ctx.split?.generatorCores ?? 1)),
    };
  }

  // 4. Audit (SPEC 2.3) of what this cell's checkouts did.
  const checkouts = [...phases, stable].flatMap((p) => p.checkouts);
  ctx.allCheckouts.push(...checkouts);
  let anomalies: Cell["anomalies"];
  if (workload !== "analytics") {
    ctx.checkAlive("audit");
    ctx.onProgress({ cell, stage: "audit", detail: `${checkouts.length} checkouts, ${scope.length} products` });
    const stockAdded = new Map<string, number>();
    for (const p of [...phases, stable]) for (const [id, n] of p.stockAdded) stockAdded.set(id, (stockAdded.get(id) ?? 0) + n);
    const result = await audit({
      baseUrl: ctx.baseUrl,
      records: checkouts,
      allRecords: ctx.allCheckouts,
      idOf: (p) => String(p),
      priceOf: (id) => ctx.prices.get(id) ?? NaN,
      stockBefore,
      stockAdded,
      sampleRecords: s.auditSample,
      coPurchaseSample: s.coPurchaseSample,
      quietMs: s.quietMs,
    });
    anomalies = { kinds: result.anomalies, total: result.total, ...(result.examples.length ? { examples: result.examples } : {}), ambiguous: result.ambiguous };
  }

  // 5. Validity: a saturated generator measures itself, not the target; a stable
  // phase that did not keep up with its offered rate measured a queue, not stable load.
  const reasons: string[] = [];
  const kept = stableStats.completedShare;
  if (kept !== undefined && kept < SUSTAINABLE.minCompletedShare) {
    const completedRate = kept * stableStats.offeredRate;
    reasons.push(
      `stable phase: offered ${stableRate}/s, completed ${completedRate.toFixed(1)}/s (${(kept * 100).toFixed(1)}%, planned rollbacks included) within the phase: it did not achieve its offered rate (needs >= ${SUSTAINABLE.minCompletedShare * 100}%), so its latency is not a stable-load figure`,
    );
  }
  const gen = generatorSaturated({ droppedIterations: stable.step.droppedIterations, iterations: stable.step.iterations, generatorCpuShare: stable.generatorCpuShare });
  reasons.push(...gen.reasons.map((r) => `stable phase: ${r}`));
  const firstBad = phases.find((p) => !judgeStep(p.step).sustainable);
  if (firstBad && firstBad.generatorCpuShare !== undefined && firstBad.generatorCpuShare > 0.9) {
    reasons.push(`the ramp stopped at ${firstBad.step.offeredRate}/s while the load generator CPU was at ${Math.round(firstBad.generatorCpuShare * 100)}%: the knee may be the generator's`);
  }

  return {
    workload,
    distribution,
    parameters: {
      products: s.products,
      ...(workload === "analytics" ? { populate: s.populate } : {}),
      stepS: s.stepS,
      stableS: s.stableS,
      stableRate,
      stableBasis: knee.sustainableRate === null ? "max-moving-average" : "sustainable-rate",
      kneeStoppedBecause: knee.stoppedBecause,
      zipfS: 1.25,
      productPrefix: ctx.productPrefix,
    },
    seed: ctx.seed,
    maxThroughput,
    stable: stableStats,
    series: concatSeries([...ramp, stable.agg]),
    setupOps: setupOpsResult(stable.agg),
    ...(cost ? { cost } : {}),
    ...(anomalies ? { anomalies } : {}),
    ...(breakdown ? { breakdown } : {}),
    valid: reasons.length === 0,
    ...(reasons.length ? { invalidReason: reasons.join("; ") } : {}),
  };
}

/** Starts shipping spans for the stable phase; undefined (and a progress note) when tracing is off or Kafka fails. */
async function openTraceWindow(ctx: RunContext, cell: string): Promise<TraceWindow | undefined> {
  if (!ctx.trace) return undefined;
  try {
    return await ctx.trace.window();
  } catch (e) {
    ctx.onProgress({ cell, stage: "trace", detail: `no breakdown for this cell: could not start shipping spans: ${(e as Error).message}` });
    return undefined;
  }
}

/**
 * The stable phase's breakdown: the measured requests are the checkouts of
 * the audit records (answered ones, as in the client latency stats), grouped
 * by cart size; analytics sends only freq-items requests in its stable phase,
 * so every traced request is measured there. Node-postgres's spans carry no
 * query shape, so analytics gets an overall breakdown only.
 */
async function stableBreakdown(
  ctx: RunContext,
  cell: string,
  workload: Workload,
  traceWindow: TraceWindow,
  stable: PhaseOutcome,
  stats: StableLoad,
): Promise<Cell["breakdown"]> {
  const note = (detail: string) => ctx.onProgress({ cell, stage: "trace", detail });
  let measured: Map<string, MeasuredRequest> | undefined;
  if (workload !== "analytics") {
    measured = new Map();
    for (const c of stable.checkouts) if (c.traceId && (c.status === 200 || c.status === 409)) measured.set(c.traceId, { cartSize: String(c.items.length) });
  }
  const mean = (by: StableLoad["byCartSize"]) => (by ? Object.fromEntries(Object.entries(by).map(([k, o]) => [k, o.latency.mean])) : undefined);
  const client: ClientLatency = { overall: stats.latency.mean, byCartSize: mean(stats.byCartSize), byShape: mean(stats.byShape) };
  try {
    note("collecting the stable phase's spans");
    const keep = measured;
    const { spans, shipped } = await traceWindow.finish(keep ? (span) => keep.has(span.traceId) : undefined);
    const breakdown = buildBreakdown({ spans, client, measured, requests: stats.latency.count });
    if (!breakdown) {
      note(`no breakdown for this cell: none of the measured requests has a gateway span (${shipped.spans} span lines shipped of ${shipped.lines} log lines)`);
      return undefined;
    }
    for (const n of breakdown.notes ?? []) note(`breakdown: ${n}`);
    const c = breakdown.coverage;
    if (c) note(`breakdown covers ${c.complete} of ${c.requests} requests (${(c.share * 100).toFixed(1)}%), parts ${(c.deviation * 100).toFixed(1)}% off the measured latency${c.flagged ? `: flagged (${c.flags.join("; ")})` : ""}`);
    return breakdown;
  } catch (e) {
    note(`no breakdown for this cell: ${(e as Error).message}`);
    return undefined;
  }
}
