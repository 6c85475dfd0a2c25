/**
 * The result document of one run (SPEC 6): versioned, validated on write,
 * never overwritten. A failed run keeps its error and is never plotted.
 *
 * Latencies are milliseconds; rates are requests (or iterations) per second;
 * histograms are HDR histograms, compressed and base64-encoded
 * (hdr-histogram-js `encodeIntoCompressedBase64`), in microseconds, so that
 * they can be merged across runs later.
 */
import { z } from "zod";
import { Distribution, EnvironmentKind, Profile, Workload } from "./contract.ts";
import { MicroResult } from "./micro.ts";
import { CostSource, FaultResult, ResilienceResults, ScaleUpResult } from "./resilience.ts";
import { Noise, PopulatedState, TrialTag } from "./trial.ts";

/**
 * The version written now. 2 added `micro` (the microbenchmarks), `resilience`
 * (recovery, scalability) and the cells' `fault` and `scaleUp`; a version-1
 * document is still read (it has none of them).
 */
export const RESULT_SCHEMA_VERSION = 2;
/** the versions this reader understands */
export const RESULT_SCHEMA_VERSIONS = [1, 2] as const;

const count = z.number().int().nonnegative();
const nonneg = z.number().nonnegative();
const share = z.number().min(0).max(1);
/** an encoded HDR histogram (microseconds, 1 us .. 60 s, 3 significant digits) */
const EncodedHistogram = z.string().min(1);

export const LatencyStats = z.strictObject({
  count,
  mean: nonneg,
  p50: nonneg,
  p95: nonneg,
  p99: nonneg,
  p999: nonneg,
  max: nonneg,
  min: nonneg,
});
export type LatencyStats = z.infer<typeof LatencyStats>;

/** Requests of one kind, by outcome: 200 successful, 409 rejected (business failure), anything else an error. */
export const OutcomeSummary = z.strictObject({
  requests: count,
  successful: count,
  rejected: count,
  errors: count,
  /** over the answered requests (successful and rejected) */
  latency: LatencyStats,
  histogram: EncodedHistogram.optional(),
});
export type OutcomeSummary = z.infer<typeof OutcomeSummary>;

/** One second of a run; t counts seconds from the run's start. */
export const SeriesPoint = z.strictObject({
  t: z.number().int().nonnegative(),
  /** offered arrival rate of the step running in this second */
  offered: nonneg.optional(),
  successful: count,
  rejected: count,
  errors: count,
  dropped: count,
  /** null when no request ended in this second */
  p50: nonneg.nullable(),
  p99: nonneg.nullable(),
});
export type SeriesPoint = z.infer<typeof SeriesPoint>;

/** One arrival-rate step of the max-throughput ramp. */
export const StepResult = z.strictObject({
  scenario: z.string().min(1),
  offeredRate: nonneg,
  durationS: z.number().positive(),
  /** successful requests per second over the step */
  achievedRate: nonneg,
  /** (successful + rejected) / offered */
  completedShare: nonneg,
  errorRate: share,
  droppedIterations: count,
  latency: LatencyStats,
  histogram: EncodedHistogram.optional(),
  /** why the step is not sustainable; empty or absent when it is */
  failedBecause: z.array(z.string()).optional(),
  /**
   * Present in documents written since the knee search bisects: completedShare
   * and achievedRate count only requests that ended inside the step's measured
   * window (its last measuredWindowS seconds, the first second or so left out
   * while iterations reach their measured request), so an overloaded step
   * cannot catch up after it ended. Absent: they counted every request of the step.
   */
  measuredWindowS: z.number().positive().optional(),
  /** highest 10 s moving average of successful requests per second inside the measured window (its mean when the window is shorter) */
  peakRate: nonneg.optional(),
  /**
   * what the step was for (documents since the knee is confirmed): warmup (not
   * judged: it primes the target before the search), coarse and fine (the
   * search), confirm (a longer repeat of the candidate knee). Absent: a search step.
   */
  phase: z.enum(["warmup", "coarse", "fine", "confirm"]).optional(),
  /**
   * the step failed narrowly (verdict.ts narrowFailure) and the search ran
   * its rate again at once: the next step's verdict is the rate's
   */
  repeated: z.literal(true).optional(),
  /** seconds waited before the step for the target's CPU to settle after the previous one */
  quietS: nonneg.optional(),
  /** requests begun in the measured window and answered within the latency bound, per second / offered rate */
  scheduledShare: nonneg.optional(),
  /**
   * the cores the target's processes used while the step's requests ran (their
   * CPU seconds over that window); absent when its processes were not known
   * (a target given by URL) and in documents written before the ramp sampled them
   */
  targetCores: nonneg.optional(),
});
export type StepResult = z.infer<typeof StepResult>;

/** Why the knee search (max-throughput ramp) stopped. */
export const KNEE_STOPS = [
  "resolution-reached",
  "fine-steps-exhausted",
  "rate-granularity",
  "max-rate-reached",
  "max-steps-reached",
  "min-rate-unsustainable",
  "confirmation-failed",
  // written before the search bisected (kept so that stored documents still read)
  "unsustainable-step-found",
  "first-step-unsustainable",
] as const;
export type KneeStop = (typeof KNEE_STOPS)[number];

/** The sentence a page shows for each reason. */
export const KNEE_STOP_TEXT: Record<KneeStop, string> = {
  "resolution-reached": "the knee was bracketed to the target resolution",
  "fine-steps-exhausted": "the profile's bisection steps ran out before the target resolution",
  "rate-granularity": "no offerable rate (tenths below 100/s, whole rates above) is left between the last sustainable and the first unsustainable step",
  "max-rate-reached": "the target kept up with the profile's highest rate: the sustainable rate is a lower bound",
  "max-steps-reached": "the profile's coarse steps ran out before a step was unsustainable: the sustainable rate is a lower bound",
  "min-rate-unsustainable": "even the lowest rate was not sustainable",
  "confirmation-failed": "no rate the search found held when it was repeated with longer steps, down to the profile's last step down",
  "unsustainable-step-found": "an unsustainable step was found (coarse steps only, the knee was not refined)",
  "first-step-unsustainable": "even the first step was not sustainable",
};

/** A sustainable rate is ranked only when the knee is known this precisely. */
export const PUBLISHABLE_RESOLUTION = 0.1;

/**
 * Whether a knee's bracket is as narrow as ranking needs. The slack is for
 * floating point alone: rates are offered in tenths, and a bracket of exactly
 * 10% (1.0/s to 1.1/s) computes as 0.10000000000000009.
 */
export const publishableResolution = (resolution: number): boolean => resolution <= PUBLISHABLE_RESOLUTION + 1e-9;

export const MaxThroughput = z.strictObject({
  /**
   * peak throughput: the maximum of the trailing 10 s moving average of
   * successful requests per second; since steps have a measuredWindowS, taken
   * inside each step's measured window (the maximum of the steps' peakRate), so
   * it is at least every step's achievedRate
   */
  maxMovingAvg10s: nonneg,
  /** true when the series was shorter than 10 s and the average covers what exists */
  movingAvgPartial: z.boolean().optional(),
  /** the highest sustainable step's offered rate, or null when no step was sustainable */
  sustainableRate: nonneg.nullable(),
  steps: z.array(StepResult),
  /** how the knee search went (documents since the search bisects) */
  knee: z
    .strictObject({
      stoppedBecause: z.enum(KNEE_STOPS),
      /** the lowest unsustainable offered rate above sustainableRate; null when every step was sustainable */
      firstUnsustainableRate: nonneg.nullable(),
      /** (firstUnsustainableRate - sustainableRate) / sustainableRate; null when the knee is not bracketed */
      resolution: nonneg.nullable(),
      /** the resolution the profile aimed for; null for a profile without bisection (a smoke test) */
      targetResolution: nonneg.nullable(),
      /**
       * the confirmation (MLPerf-style): the search's candidate rate repeated
       * `count` times with `stepS` steps; any failure steps down by the
       * resolution and confirms again. sustainableRate is the highest
       * confirmed rate. Absent: the profile does not confirm (a smoke test).
       */
      confirmation: z
        .strictObject({
          count: z.number().int().positive(),
          stepS: z.number().positive(),
          /** the search's highest sustainable rate */
          candidateRate: nonneg,
          /** null when no rate held */
          confirmedRate: nonneg.nullable(),
          stepsDown: z.number().int().nonnegative(),
        })
        .optional(),
    })
    .optional(),
  /**
   * the cores the target used at its knee: the mean of targetCores over the
   * sustainable steps at sustainableRate (the confirmation's, when it ran).
   * Beside the cores it was given (the CPUs environment.cpuSplit.target lists) it says whether
   * the knee is the target's CPU or something it waits on.
   */
  kneeCores: nonneg.optional(),
});
export type MaxThroughput = z.infer<typeof MaxThroughput>;

const ByTag = z.record(z.string(), OutcomeSummary);

export const StableLoad = z.strictObject({
  offeredRate: nonneg,
  durationS: z.number().positive(),
  achievedRate: nonneg,
  errorRate: share,
  droppedIterations: count.optional(),
  latency: LatencyStats,
  /** key: number of products in the cart */
  byCartSize: ByTag.optional(),
  /** key: linear | fan-out | exponential */
  byShape: ByTag.optional(),
  /** key: "<top>/<depth>" */
  byTopDepth: ByTag.optional(),
  histogram: EncodedHistogram,
  /**
   * (successful + rejected, i.e. planned rollbacks count) that ended inside the
   * measured window, per second, / offered rate; below 0.95 the phase did not
   * achieve its offered rate and its latency is not a stable-load figure
   */
  completedShare: nonneg.optional(),
});
export type StableLoad = z.infer<typeof StableLoad>;

/**
 * The traced phase: the stable phase's rate again, for a shorter time, with
 * the requests sampled (SPEC 3), so the target writes its spans here and only
 * here. Its spans give the breakdown; its latency against the untraced stable
 * phase's is what tracing cost this system in this run.
 */
export const TracedPhase = z.strictObject({
  offeredRate: nonneg,
  durationS: z.number().positive(),
  achievedRate: nonneg,
  errorRate: share,
  latency: LatencyStats,
  /** the measured request's p50 and p99 here / in the stable phase just before (1.05: tracing added 5%); null when either has no sample */
  overhead: z.strictObject({ p50: nonneg.nullable(), p99: nonneg.nullable() }),
  /**
   * The target's CPU here, sampled as in the stable phase (absent in older documents and where the target's
   * processes are unknown): the cores it used while the phase's requests ran, core-seconds per 1000 successful
   * requests, and that over the stable phase's (1.1: tracing cost a tenth more CPU per request)
   */
  cost: z
    .strictObject({
      targetCores: nonneg,
      coreSecondsPer1000: nonneg.optional(),
      vsStable: nonneg.optional(),
    })
    .optional(),
});
export type TracedPhase = z.infer<typeof TracedPhase>;

/** How many process labels a cost split keeps (the sampler sums the rest as "other"). */
export const MAX_COST_PROCESSES = 12;

export const Cost = z.strictObject({
  /**
   * the target's core-seconds per 1000 successful requests of the stable
   * phase; absent when the phase completed none, for then the cost of one is
   * unknown, not zero (documents before 2026-12-06 wrote 0: read it through
   * costPer1000)
   */
  coreSecondsPer1000: nonneg.optional(),
  throughputPerCore: nonneg,
  peakRssBytes: count,
  targetCpuSeconds: nonneg,
  generatorCpuSeconds: nonneg,
  /** share of the generator's cores it kept busy; above 0.9 the generator was the bottleneck */
  generatorCpuShare: nonneg,
  /**
   * coreSecondsPer1000 split by what each of the target's processes is (its
   * command, and the script or main class a runtime runs: "restate-server",
   * "node app/main.ts", "postgres"), in the shares the whole stable phase
   * shows; absent when a counter (a container's cgroup) gave the CPU, and in
   * documents before 2026-12-04
   */
  cpuByProcess: z
    .record(z.string().min(1).max(60), nonneg)
    .refine((split) => Object.keys(split).length <= MAX_COST_PROCESSES, `at most ${MAX_COST_PROCESSES} process labels`)
    .optional(),
});
export type Cost = z.infer<typeof Cost>;

/**
 * A cell's core-seconds per 1000 successful requests, or undefined when it is
 * not known: no cost was measured, or the stable phase completed no request (a
 * 0 in an older document meant that; a target that completed requests never
 * used no CPU for them).
 */
export function costPer1000(cost: Pick<Cost, "coreSecondsPer1000"> | undefined | null): number | undefined {
  const v = cost?.coreSecondsPer1000;
  return v !== undefined && v > 0 ? v : undefined;
}

export const Anomalies = z.strictObject({
  kinds: z.record(z.string(), count),
  total: count,
  /** a few concrete anomalies, readable */
  examples: z.array(z.string()).max(20).optional(),
  /** checkouts without a clear answer (timeout, 5xx), resolved by reading the cart */
  ambiguous: count.optional(),
});
export type Anomalies = z.infer<typeof Anomalies>;

const JsonScalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const Parameters = z.record(z.string(), z.union([JsonScalar, z.array(JsonScalar), z.record(z.string(), JsonScalar)]));

export const Cell = z.strictObject({
  workload: Workload,
  distribution: Distribution,
  /** every configurable workload parameter as it was used (SPEC 4) */
  parameters: Parameters.default({}),
  seed: z.number().int(),
  maxThroughput: MaxThroughput.optional(),
  stable: StableLoad.optional(),
  series: z.array(SeriesPoint).default([]),
  /** the requests that prepare the measured one (create-user, add-to-cart, ...), by op */
  setupOps: z.record(z.string(), OutcomeSummary).optional(),
  cost: Cost.optional(),
  anomalies: Anomalies.optional(),
  /** span breakdown (SPEC 5), from the traced phase (before 2026-12-03: from the stable phase, traced); shape defined when the breakdown is built */
  breakdown: z.record(z.string(), z.unknown()).optional(),
  /** the traced phase after the stable one, when the target was traced */
  traced: TracedPhase.optional(),
  /** the fault experiment's phase (version 2): one kill -9 during a stable phase, and what it cost */
  fault: FaultResult.optional(),
  /** the scale-up experiment's phase (version 2): one node added during a stable phase */
  scaleUp: ScaleUpResult.optional(),
  valid: z.boolean(),
  invalidReason: z.string().min(1).optional(),
});
export type Cell = z.infer<typeof Cell>;

/** why not: the cell is invalid, its knee is not known well enough (a smoke test), or its audit is missing or found anomalies */
export type Rankable = { ok: true; resolution: number } | { ok: false; reason: string; because: "invalid" | "knee" | "audit" };

/** A knee's resolution as a percentage: a tenth shown when whole percents would make 10.4% read as the 10% that is ranked. */
const resolutionPercent = (resolution: number): string => `${Number((resolution * 100).toFixed(1))}%`;

/**
 * Whether a cell's sustainable rate may be ranked on the leaderboard: the cell
 * is valid, its knee is bracketed to PUBLISHABLE_RESOLUTION or better, and
 * its audit ran and found nothing wrong (an anomaly means the number was not
 * earned by a correct system, however fast). Otherwise the reason: the cell
 * stays on its run page, with its numbers and its anomalies, unranked.
 */
export function rankable(cell: Pick<Cell, "valid" | "maxThroughput" | "anomalies">): Rankable {
  if (!cell.valid) return { ok: false, because: "invalid", reason: "the cell is invalid" };
  const knee = cell.maxThroughput?.knee;
  if (!knee) return { ok: false, because: "knee", reason: "written before the knee search bisected: the knee's resolution is unknown (smoke test)" };
  if (knee.resolution === null) return { ok: false, because: "knee", reason: `the knee is not bracketed: ${KNEE_STOP_TEXT[knee.stoppedBecause]}` };
  if (!publishableResolution(knee.resolution))
    return {
      ok: false,
      because: "knee",
      reason: `the knee is known only to ${resolutionPercent(knee.resolution)} (ranked: ${resolutionPercent(PUBLISHABLE_RESOLUTION)} or better); ${KNEE_STOP_TEXT[knee.stoppedBecause]}`,
    };
  if (!cell.anomalies) return { ok: false, because: "audit", reason: "no audit: the consistency of what was measured is unknown" };
  if (cell.anomalies.total > 0) {
    const kinds = Object.entries(cell.anomalies.kinds)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`);
    return {
      ok: false,
      because: "audit",
      reason: `the audit found ${cell.anomalies.total} ${cell.anomalies.total === 1 ? "anomaly" : "anomalies"}${kinds.length ? ` (${kinds.join(", ")})` : ""}`,
    };
  }
  return { ok: true, resolution: knee.resolution };
}

export const Environment = z.strictObject({
  kind: EnvironmentKind,
  nodes: z.number().int().positive(),
  machineType: z.string().min(1).optional(),
  cpuModel: z.string(),
  cores: z.number().int().positive(),
  memoryBytes: count,
  os: z.string(),
  /** Node.js version of the worker */
  node: z.string(),
  k6Version: z.string(),
  systemVersion: z.string().optional(),
  gitSha: z
    .string()
    .regex(/^[0-9a-f]{7,40}$/)
    .optional(),
  /** CPU lists (taskset syntax) when generator and target share a machine */
  cpuSplit: z.strictObject({ generator: z.string().min(1), target: z.string().min(1) }).optional(),
  /** the target's storage as the server reported it (SHOW ...) when the run started; absent when the target uses none or is given by URL */
  storage: z
    .strictObject({
      postgres: z
        .strictObject({
          /** dedicated: a server only this target uses (its own processes are counted in its cost); shared: one other clients use too */
          instance: z.enum(["dedicated", "shared"]),
          fsync: z.string().min(1),
          synchronous_commit: z.string().min(1),
          full_page_writes: z.string().min(1),
          version: z.string().min(1).optional(),
        })
        .optional(),
      /** the target's Kafka broker, when its data path runs through Kafka: dedicated means its CPU is in the target's cost */
      kafka: z
        .strictObject({
          instance: z.enum(["dedicated", "shared"]),
          version: z.string().min(1).optional(),
        })
        .optional(),
    })
    .optional(),
  /** where the cost's CPU figures came from; absent when the run had no target processes to count (a target given by URL) or in older documents */
  cost: z.strictObject({ source: CostSource }).optional(),
});
export type Environment = z.infer<typeof Environment>;

export const ResultDocument = z
  .strictObject({
    $schema: z.string().optional(),
    schemaVersion: z.union(RESULT_SCHEMA_VERSIONS.map((v) => z.literal(v))),
    runId: z.uuid(),
    /** interrupted: stopped by the operator (the worker was stopped mid-run) or lost with its worker; kept, never ranked */
    status: z.enum(["completed", "failed", "interrupted"]),
    error: z.strictObject({ stage: z.string().min(1), message: z.string() }).optional(),
    target: z.strictObject({
      name: z.string().min(1),
      version: z.string().min(1),
      system: z.string().min(1),
      manifestDigest: z.string().regex(/^sha256:[0-9a-f]{64}$/, { message: "must be sha256:<64 hex digits>" }),
    }),
    environment: Environment,
    startedAt: z.iso.datetime({ offset: true }),
    finishedAt: z.iso.datetime({ offset: true }),
    profile: Profile,
    cells: z.array(Cell),
    /** the microbenchmarks (spec 8), when the run measured them (version 2) */
    micro: MicroResult.optional(),
    /** run-level resilience results (version 2): recovery time vs state size, max throughput per node count, experiments the target cannot do */
    resilience: ResilienceResults.optional(),
    rawData: z.strictObject({ dir: z.string().min(1), files: z.array(z.string().min(1)) }),
    /** the trial of a campaign this run was (sfbench run --trials, sfbench campaign); absent for a single run */
    campaign: TrialTag.optional(),
    /** the campaign's populated state this trial started from (restored, not seeded or populated by the trial itself); absent: the run seeded its own */
    populatedState: PopulatedState.optional(),
    /** how busy the machine was while the run measured (load average, steal, CPU outside the run); absent in older documents */
    noise: Noise.optional(),
  })
  .superRefine((doc, ctx) => {
    if (doc.status !== "completed" && !doc.error)
      ctx.addIssue({ code: "custom", path: ["error"], message: `required when status is "${doc.status}": {stage, message}` });
    if (doc.status === "completed" && doc.error)
      ctx.addIssue({ code: "custom", path: ["error"], message: 'only allowed when status is "failed" or "interrupted"' });
    if (doc.micro && doc.schemaVersion < 2)
      ctx.addIssue({ code: "custom", path: ["micro"], message: "needs schemaVersion 2 (version 1 documents have no microbenchmarks)" });
    if (doc.resilience && doc.schemaVersion < 2)
      ctx.addIssue({ code: "custom", path: ["resilience"], message: "needs schemaVersion 2 (version 1 documents have no resilience results)" });
    if (Date.parse(doc.finishedAt) < Date.parse(doc.startedAt)) ctx.addIssue({ code: "custom", path: ["finishedAt"], message: "is before startedAt" });
    doc.cells.forEach((cell, i) => {
      if (!cell.valid && !cell.invalidReason) ctx.addIssue({ code: "custom", path: ["cells", i, "invalidReason"], message: "required when valid is false" });
    });
  });
export type ResultDocument = z.infer<typeof ResultDocument>;
export type ResultDocumentInput = z.input<typeof ResultDocument>;

export type ResultParse = { ok: true; result: ResultDocument } | { ok: false; errors: string[] };

/** One line per problem: `cells.0.stable.latency.p99: Invalid input: expected number, received string`. */
export function formatResultErrors(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const field = issue.path.map(String).join(".") || "(root)";
    if (issue.code === "unrecognized_keys") return `${field}: unknown field(s) ${issue.keys.join(", ")}`;
    return `${field}: ${issue.message}`;
  });
}

/** Validates parsed JSON (or JSON text) as a result document. Never throws. */
export function parseResult(json: unknown): ResultParse {
  if (typeof json === "string") {
    try {
      json = JSON.parse(json);
    } catch (e) {
      return { ok: false, errors: [`(root): not valid JSON: ${(e as Error).message}`] };
    }
  }
  if (json && typeof json === "object" && "schemaVersion" in json && !(RESULT_SCHEMA_VERSIONS as readonly unknown[]).includes(json.schemaVersion))
    return {
      ok: false,
      errors: [
        `schemaVersion: this reader understands versions ${RESULT_SCHEMA_VERSIONS.join(" and ")}, the document has ${JSON.stringify(json.schemaVersion)}`,
      ],
    };
  const r = ResultDocument.safeParse(json);
  return r.success ? { ok: true, result: r.data } : { ok: false, errors: formatResultErrors(r.error) };
}
