/**
 * A whole benchmark run against a target that already passed verification:
 * seed, (populate), every cell, then one result document, written once and
 * never overwritten. A failure anywhere still writes a document, with the
 * stage and the error, and keeps the raw data gathered so far.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  parseResult,
  RESULT_SCHEMA_VERSION,
  type Cell,
  type CellChoice,
  type Environment,
  type PlaceEnvironment,
  experimentSupport,
  type Experiment,
  type MicroResult,
  type Profile,
  type ResilienceResults,
  type ScalabilityResult,
  type PopulatedState,
  type ProgressEvent,
  type ResultDocument,
  type TrialTag,
  type Workload,
} from "@sfbench/core";
import { TraceSession, type TraceOptions } from "../trace/session.ts";
import { formatCpuList, pinTrees, planSplit, runCpus } from "../cost/affinity.ts";
import { noiseBetween, noiseMark } from "../cost/noise.ts";
import { EXPERIMENT_PHASES } from "./experiments.ts";
import { scalabilityPoints, type MeasuredNodeCount } from "../resilience/scalability.ts";
import { runCell } from "./cell.ts";
import { adoptPopulatedState, checkRestored, populateScriptEnv, productPrefixOf, setupEnv, setupScript } from "./setup.ts";
import { StageError, type RunContext, type TargetControl } from "./phase.ts";
import { keepTargetLogs } from "./target-logs.ts";

/** This run's max throughput as the scalability experiment counts it: its first cell's peak and sustainable rate. */
export function measuredNodeCount(nodes: number, cells: readonly Cell[]): MeasuredNodeCount | undefined {
  const m = cells[0]?.maxThroughput;
  return m ? { nodes, maxThroughput: m.maxMovingAvg10s, sustainableRate: m.sustainableRate } : undefined;
}

function scalabilityPart(opts: BenchmarkOptions, cells: readonly Cell[], resilience: ResilienceResults | undefined): { resilience?: ResilienceResults } {
  const own = opts.scalability ? measuredNodeCount(opts.nodes ?? 1, cells) : undefined;
  if (!opts.scalability || !own) return resilience ? { resilience } : {};
  const scalability: ScalabilityResult = {
    environment: opts.place?.kind ?? "local",
    routing: opts.scalability.routing,
    points: scalabilityPoints([...opts.scalability.measured, own]),
  };
  return { resilience: { ...(resilience ?? { unsupported: [] }), scalability } };
}

const notSupported = (s: { supported: true } | { supported: false; reason: string }) => (s.supported ? undefined : s.reason);
import { localEnvironment } from "./environment.ts";
import { runK6, type LoadGenerator } from "./k6-runner.ts";
import { PROFILE_SETTINGS, type ProfileSettings } from "./profiles.ts";

export interface BenchmarkOptions {
  target: ResultDocument["target"];
  baseUrl: string;
  k6: string;
  profile: Profile;
  /** changes to the profile's settings (benchmarks of the instrument: bench:profiles); they show in each cell's parameters */
  settings?: Partial<ProfileSettings>;
  cells: CellChoice[];
  /** the phases run for every cell (default throughput: ramp, then stable load) */
  experiment?: Experiment;
  /**
   * Measure the microbenchmarks (docs/spec.md 8) after the cells; `declared`:
   * the target's manifest says `micro: true` (otherwise the document says it is
   * not supported). Absent: no microbenchmarks.
   */
  micro?: { declared: boolean };
  /** kill, restart and add nodes: the fault, scale-up and recovery experiments need it (a target sfbench started) */
  control?: TargetControl;
  /** how k6 runs (default: on this machine's host, runK6); a provider whose target runs elsewhere runs it beside the target */
  generator?: LoadGenerator;
  /** what the provider knows of the place better than this machine's own look (a cluster's kind and machine type) */
  place?: PlaceEnvironment;
  /** the target manifest's audit.readsPerSecond: the audit reads no faster (recorded in each cell's parameters) */
  auditReadsPerSecond?: number;
  /** the target manifest's populate.checkoutsPerSecond: the populate phase checks out no faster (recorded in the analytics cell's parameters) */
  populateCheckoutsPerSecond?: number;
  /** processes the target runs as (recorded as environment.nodes; the scalability experiment runs once per count) */
  nodes?: number;
  /**
   * The scalability experiment's node counts measured before this run (same
   * target, same cells): this run adds its own count and its document gets
   * resilience.scalability over all of them.
   */
  scalability?: { measured: MeasuredNodeCount[]; routing: ScalabilityResult["routing"] };
  seed: number;
  repoRoot: string;
  /** result documents go to <resultsDir>/<target>/ */
  resultsDir: string;
  /** raw k6 output goes to <rawRoot>/<runId>/ */
  rawRoot: string;
  /** root pids of the target and its services (empty when the target was given by URL) */
  targetPids: () => number[];
  /** throws when the target has died */
  checkAlive: (stage: string) => void;
  /** the target's log files: a failed run keeps their ends with its raw data (absent: the target was given by URL) */
  targetLogs?: () => string[];
  systemVersion?: string;
  /** give the generator and the target separate cores (default: when the machine has >= 2) */
  pin?: boolean;
  onProgress?: (event: ProgressEvent) => void;
  runId?: string;
  /**
   * Spans for the breakdown: the target's log file (started with SFBENCH_TRACE=1)
   * and the Kafka brokers. The run ships each cell's stable-phase spans through
   * the topic sfbench.spans.<runId>, deleted when the run ends.
   */
  trace?: TraceOptions;
  /**
   * Aborted when the run must stop now (the worker was stopped): k6 is killed,
   * the run ends at the next check and its document has status "interrupted"
   * with `interrupted during <stage>: <signal.reason>`.
   */
  signal?: AbortSignal;
  /** the target's storage settings, recorded in the environment fingerprint */
  storage?: Environment["storage"];
  /** the campaign trial this run is (sfbench run --trials, sfbench campaign), recorded in the document */
  campaign?: TrialTag;
  /**
   * The populated state the target was started on (a campaign's, restored
   * from its copy): no seed, and no populate when the state has it; the
   * build's records (under <rawRoot>/<buildId>/) give the audit its prices
   * and earlier checkouts, and the document names the state.
   */
  populated?: PopulatedState;
}

export interface BenchmarkOutcome {
  doc: ResultDocument;
  file: string;
}

/** Cells in the order that keeps the audit exact: checkouts first, analytics (after its populate phase) last. */
export function orderCells(cells: BenchmarkOptions["cells"]): BenchmarkOptions["cells"] {
  const rank: Record<Workload, number> = { checkout: 0, contention: 1, analytics: 2 };
  return [...cells].sort((a, b) => rank[a.workload] - rank[b.workload] || a.distribution.localeCompare(b.distribution));
}

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");

/** Writes a result document under results/<target>/, refusing to overwrite anything. */
export function writeResult(resultsDir: string, doc: ResultDocument): string {
  const parsed = parseResult(doc);
  if (!parsed.ok) throw new Error(`the result document does not validate (a bug): ${parsed.errors.slice(0, 5).join("; ")}`);
  const dir = join(resultsDir, doc.target.name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${stamp(new Date(doc.startedAt))}-${doc.runId.slice(0, 8)}.json`);
  writeFileSync(file, JSON.stringify(parsed.result, null, 2) + "\n", { flag: "wx" });
  return file;
}

export async function runBenchmark(opts: BenchmarkOptions): Promise<BenchmarkOutcome> {
  const runId = opts.runId ?? randomUUID();
  const startedAt = new Date();
  const settings: ProfileSettings = { ...PROFILE_SETTINGS[opts.profile], ...opts.settings };
  const rawDir = join(opts.rawRoot, runId);
  mkdirSync(rawDir, { recursive: true });
  const progress = opts.onProgress ?? (() => {});
  const split = opts.pin === false ? undefined : planSplit();
  const ctx: RunContext = {
    baseUrl: opts.baseUrl,
    k6: opts.k6,
    generator: opts.generator ?? runK6,
    seed: opts.seed,
    settings,
    rawDir,
    // a fresh product set per run (a restored state's are its build's): earlier runs against the same target cannot disturb the audit
    productPrefix: productPrefixOf(opts.populated?.buildId ?? runId),
    split,
    targetPids: opts.targetPids,
    checkAlive: (stage) => {
      if (opts.signal?.aborted) throw new StageError(stage, "interrupted");
      opts.checkAlive(stage);
    },
    signal: opts.signal,
    ...(opts.control ? { target: opts.control } : {}),
    ...(opts.auditReadsPerSecond ? { auditReadsPerSecond: opts.auditReadsPerSecond } : {}),
    ...(opts.populateCheckoutsPerSecond ? { populateCheckoutsPerSecond: opts.populateCheckoutsPerSecond } : {}),
    onProgress: progress,
    allCheckouts: [],
    prices: new Map(),
    rawFiles: [],
  };
  const cells: Cell[] = [];
  let micro: MicroResult | undefined;
  let resilience: ResilienceResults | undefined;
  const experiment = opts.experiment ?? "throughput";
  // the experiments that act on the target's processes, when this target cannot do them: said, not skipped silently
  const unsupported =
    experiment === "throughput"
      ? undefined
      : !opts.control
        ? "sfbench did not start this target (given by URL), so it cannot kill, restart or add its processes"
        : notSupported(experimentSupport(opts.control.manifest)[experiment]);
  const phases = EXPERIMENT_PHASES[experiment];
  const cellsToRun = unsupported || phases.cell.length === 0 ? [] : opts.cells;
  let error: ResultDocument["error"];
  const pinned = split && opts.targetPids().length > 0;
  // the cost phase reads the provider's accounting when it has one (load-step.ts), else the target's process trees; a target given by URL has neither
  const costSource = opts.control?.cost?.source ?? (opts.targetPids().length > 0 ? "process-tree" : undefined);
  // the machine's noise over the measurement: the run's own processes are this one (with its k6 runs) and the target's
  const ownRoots = new Set([process.pid, ...opts.targetPids()]);
  const noiseStart = noiseMark([...ownRoots]);
  try {
    if (pinned) {
      pinTrees(opts.targetPids(), split.target);
      // what the experiments start again or add (a restarted node, its PostgreSQL) starts on the target's cores too
      opts.control?.placeOn?.(split.target);
      // the instrument's own work in this process (cost sampler, span shipper) stays off the target's cores
      pinProcess(process.pid, split.generator);
    }
    if (opts.trace) ctx.trace = await openTrace(runId, opts.trace, progress);
    const env = setupEnv(ctx);
    if (unsupported && experiment !== "throughput") {
      resilience = { unsupported: [{ experiment, reason: unsupported }] };
      progress({ cell: "-", phase: "seed", detail: `the ${experiment} experiment is not supported: ${unsupported}`, note: true });
    }
    // the microbenchmarks and the recovery experiment need no catalogue
    const restored = cellsToRun.length > 0 ? opts.populated : undefined;
    if (restored) {
      const what = `${restored.products} products${restored.populate !== undefined ? ` and ${restored.populate} populate checkouts` : ""}`;
      progress({
        cell: "-",
        phase: "seed",
        note: true,
        detail: `started on the populated state ${restored.buildId.slice(0, 8)} (${what}, built ${restored.builtAt})`,
      });
      await adoptPopulatedState(ctx, restored, opts.rawRoot);
      await checkRestored(ctx, restored);
    } else if (cellsToRun.length) {
      progress({ cell: "-", phase: "seed", detail: `${settings.products} products` });
      await setupScript(ctx, "seed", env, "seed");
    }
    let populated = restored?.populate !== undefined;
    for (const { workload, distribution } of orderCells(cellsToRun)) {
      // populate's checkouts add to the co-purchase counts that every later audit compares, so it runs after the checkout cells
      if (workload === "analytics" && !populated) {
        progress({ cell: "analytics", phase: "populate", detail: `${settings.populate} checkouts build the co-purchase graph` });
        await setupScript(ctx, "populate", populateScriptEnv(env, ctx), "populate");
        populated = true;
      }
      cells.push(await runCell(ctx, { workload, distribution }, opts.experiment));
    }
    for (const phase of unsupported ? [] : phases.run) {
      const part = await phase.run(ctx, { settings, ...(opts.control ? { control: opts.control } : {}), ...(opts.micro ? { micro: opts.micro } : {}) });
      if (part.micro) micro = part.micro;
      if (part.resilience) resilience = part.resilience;
    }
  } catch (e) {
    const err = e as Error;
    const stage = e instanceof StageError ? e.stage : "run";
    // an interruption also makes whatever was in flight fail (k6 killed, target stopped): report the interruption
    const message = opts.signal?.aborted ? `interrupted during ${stage}: ${String(opts.signal.reason ?? "the run was stopped")}` : err.message;
    error = { stage, message };
    if (!opts.signal?.aborted && opts.targetLogs) ctx.rawFiles.push(...keepTargetLogs(opts.targetLogs(), rawDir));
  } finally {
    if (pinned) {
      // back to the cores this process started with (not its own affinity now: that is the generator's)
      const all = formatCpuList(runCpus());
      pinTrees(opts.targetPids(), all);
      opts.control?.placeOn?.(undefined);
      pinProcess(process.pid, all);
    }
    await ctx.trace
      ?.close()
      .catch((e: Error) => progress({ cell: "-", phase: "trace", note: true, detail: `could not delete ${ctx.trace!.topic}: ${e.message}` }));
  }
  for (const pid of opts.targetPids()) ownRoots.add(pid);
  const noise = noiseBetween(noiseStart, noiseMark([...ownRoots]));
  const doc: ResultDocument = {
    schemaVersion: RESULT_SCHEMA_VERSION,
    runId,
    status: error ? (opts.signal?.aborted ? "interrupted" : "failed") : "completed",
    ...(error ? { error } : {}),
    target: opts.target,
    environment: localEnvironment({
      k6: opts.k6,
      repoRoot: opts.repoRoot,
      systemVersion: opts.systemVersion,
      cpuSplit: pinned ? { generator: split.generator, target: split.target } : undefined,
      storage: opts.storage,
      nodes: opts.nodes,
      costSource,
      ...(opts.place ? { place: opts.place } : {}),
    }),
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    profile: opts.profile,
    cells,
    ...(micro ? { micro } : {}),
    ...scalabilityPart(opts, cells, resilience),
    rawData: { dir: rawDir, files: ctx.rawFiles.map((f) => f.slice(rawDir.length + 1)) },
    ...(opts.campaign ? { campaign: opts.campaign } : {}),
    ...(opts.populated && cellsToRun.length > 0 ? { populatedState: opts.populated } : {}),
    noise,
  };
  return { doc, file: writeResult(opts.resultsDir, doc) };
}

/** The document of a run that failed before any measurement (e.g. verification): no cells, the stage and the reason. */
export function failedRunDocument(opts: {
  runId?: string;
  target: ResultDocument["target"];
  profile: Profile;
  startedAt: Date;
  stage: string;
  message: string;
  k6: string;
  repoRoot: string;
  rawDir: string;
  /** raw files already kept in rawDir (the end of the target's logs) */
  files?: string[];
}): ResultDocument {
  return {
    schemaVersion: RESULT_SCHEMA_VERSION,
    runId: opts.runId ?? randomUUID(),
    status: "failed",
    error: { stage: opts.stage, message: opts.message },
    target: opts.target,
    environment: localEnvironment({ k6: opts.k6, repoRoot: opts.repoRoot }),
    startedAt: opts.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    profile: opts.profile,
    cells: [],
    rawData: { dir: opts.rawDir, files: opts.files ?? [] },
  };
}

/**
 * Pins one process (all its threads, not its children: the target may be one)
 * to a CPU list. The cost sampler reads /proc about 4 times a second (~2.6% of
 * a core with ~200 processes, measured) and the shipper tails the target's log:
 * on the generator's cores they cannot slow the target down.
 */
export function pinProcess(pid: number, cpus: string): boolean {
  try {
    execFileSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false; // no taskset, or the process is gone
  }
}

/** The run's span topic, or undefined (and a progress note: the run goes on without a breakdown) when Kafka fails. */
async function openTrace(runId: string, trace: TraceOptions, progress: (event: ProgressEvent) => void): Promise<TraceSession | undefined> {
  try {
    const session = await TraceSession.open(runId, trace);
    progress({ cell: "-", phase: "trace", note: true, detail: `spans of ${trace.logFile} go to Kafka topic ${session.topic}` });
    return session;
  } catch (e) {
    progress({
      cell: "-",
      phase: "trace",
      note: true,
      detail: `no breakdown: could not create the span topic on ${trace.brokers.join(",")}: ${(e as Error).message}`,
    });
    return undefined;
  }
}
