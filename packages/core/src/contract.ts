/**
 * The run contract, defined once: the workloads, distributions, profiles and
 * experiments a run can choose, the parameters a submission may set, the
 * pipeline's stages, the phases of an experiment, and the progress events a
 * run emits. The CLI's flags, the web form, the worker, the result schema,
 * the database enums and the docs are derived from these lists; a test
 * (test/contract.test.ts) fails when one of them is written out by hand
 * anywhere else.
 *
 * Browser-safe: zod only (the web form imports it as `@sfbench/core/contract`).
 */
import { z } from "zod";
import { DISTRIBUTIONS, ENVIRONMENT_KINDS, EXPERIMENTS, PIPELINE_STAGES, PROFILES, WORKLOADS } from "./lists.ts";

export { DISTRIBUTIONS, ENVIRONMENT_KINDS, EXPERIMENTS, PIPELINE_STAGES, PROFILES, WORKLOADS } from "./lists.ts";

/** The system every ratio on the board is to; a reference campaign runs it beside every other. */
export const REFERENCE_SYSTEM = "node-postgres";

export const Workload = z.enum(WORKLOADS);
export type Workload = z.infer<typeof Workload>;

export const Distribution = z.enum(DISTRIBUTIONS);
export type Distribution = z.infer<typeof Distribution>;

export const Profile = z.enum(PROFILES);
export type Profile = z.infer<typeof Profile>;
/** profiles whose numbers are not ranked (their knee is not known precisely) */
export const SMOKE_PROFILES: readonly Profile[] = ["quick"];

export const Experiment = z.enum(EXPERIMENTS);
export type Experiment = z.infer<typeof Experiment>;
/** What each experiment does to every cell, in a few words (the CLI's help, the submission form). */
export const EXPERIMENT_TEXT: Record<Experiment, string> = {
  throughput: "the max-throughput ramp, then stable load at 80% of the knee (and, for a traced target, a shorter traced phase at that rate)",
  fault: "the ramp, then load at 50% of the knee with one kill -9 in it",
  "scale-up": "the ramp on one node, then load at 120% of it with a node added",
  recovery: "no cells: kill and restart after loading N entities, per state size",
};

export const EnvironmentKind = z.enum(ENVIRONMENT_KINDS);
export type EnvironmentKind = z.infer<typeof EnvironmentKind>;

/**
 * What a 409 (a business failure of SPEC 2.1) means in each workload. In
 * checkout and analytics stock and credits are never exhausted (SPEC 4 seeds
 * 10^9 of each), so a 409 cannot be right: it is a failure, counted against
 * the knee, the stable phase, the error rate and the cost divisor like any
 * error (a target must not earn throughput by shedding load with fast 409s).
 * In contention the workload plans its 409s: they count as completed, and the
 * audit checks that each one was warranted by the state it reads afterwards.
 */
export const REJECTIONS: Record<Workload, "failure" | "audited"> = { checkout: "failure", analytics: "failure", contention: "audited" };

/** The cells of a run: every workload x distribution chosen. */
export interface CellChoice {
  workload: Workload;
  distribution: Distribution;
}

/** `checkout/uniform`: how a cell is named in progress, URLs and summaries */
export const cellName = (c: CellChoice): string => `${c.workload}/${c.distribution}`;

/**
 * What a submission may choose about its run (stored in Run.parameters, read
 * by the worker). Absent lists mean every workload / distribution. `micro`:
 * run the microbenchmarks (docs/spec.md 8) too; absent means "when every
 * workload runs" (microOf). An empty workload list runs the microbenchmarks only.
 */
/** A campaign repeats a busy trial at most this often: more would let one noisy afternoon hold the queue. */
export const MAX_BUSY_REPEATS = 3;

export const RunParameters = z
  .strictObject({
    workloads: z.array(Workload).max(WORKLOADS.length).optional(),
    distributions: z.array(Distribution).min(1).max(DISTRIBUTIONS.length).optional(),
    micro: z.boolean().optional(),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional(),
    /** a campaign trial that completed while the machine was busy is run again, at most this many times (RunParameters of a campaign's runs) */
    busyRepeats: z.number().int().min(0).max(MAX_BUSY_REPEATS).optional(),
    /** the phases each cell goes through (EXPERIMENTS); absent: throughput. recovery runs no cells; the microbenchmarks belong to throughput */
    experiment: Experiment.optional(),
    /** a run of the worker's scheduled reference campaign (the schedule finds its last one by it) */
    referenceCampaign: z.literal(true).optional(),
  })
  .refine((p) => p.workloads === undefined || p.workloads.length > 0 || p.micro === true, {
    path: ["workloads"],
    message: "must name at least one workload, unless micro is true (microbenchmarks only)",
  });
export type RunParameters = z.infer<typeof RunParameters>;

/** Whether a run with these parameters measures the microbenchmarks: as asked, else when every workload runs. */
export const microOf = (p: Pick<RunParameters, "workloads" | "micro">): boolean => p.micro ?? p.workloads === undefined;

/** The cells a run's parameters choose, workloads outer, distributions inner. */
export function cellsOf(params: Pick<RunParameters, "workloads" | "distributions">): CellChoice[] {
  const workloads = params.workloads ?? WORKLOADS;
  const distributions = params.distributions ?? DISTRIBUTIONS;
  return workloads.flatMap((workload) => distributions.map((distribution) => ({ workload, distribution })));
}

/**
 * A command-line choice of workloads: one of WORKLOADS, `micro` (the
 * microbenchmarks only) or `all` (every workload and the microbenchmarks);
 * of distributions: one of DISTRIBUTIONS or `both`. The CLI's `run` and
 * `submit` share them.
 */
export const WORKLOAD_CHOICES = [...WORKLOADS, "micro", "all"] as const;
export const DISTRIBUTION_CHOICES = [...DISTRIBUTIONS, "both"] as const;
export function parametersOfChoice(
  workload: (typeof WORKLOAD_CHOICES)[number],
  distribution: (typeof DISTRIBUTION_CHOICES)[number],
): Pick<RunParameters, "workloads" | "distributions" | "micro"> {
  if (workload === "micro") return { workloads: [], micro: true };
  return {
    ...(workload === "all" ? {} : { workloads: [workload] }),
    ...(distribution === "both" ? {} : { distributions: [distribution] }),
  };
}

export const PipelineStage = z.enum(PIPELINE_STAGES);
export type PipelineStage = z.infer<typeof PipelineStage>;

/**
 * What a run reports progress about: the run-level setup (seed, populate,
 * trace) and the phases of an experiment. Each belongs to one pipeline stage.
 */
export const PHASE_STAGE = {
  seed: "seed",
  populate: "seed",
  trace: "load",
  snapshot: "load",
  ramp: "load",
  stable: "load",
  traced: "load",
  micro: "load",
  fault: "load",
  "scale-up": "load",
  recovery: "load",
  audit: "audit",
} as const satisfies Record<string, PipelineStage>;
export type ProgressPhase = keyof typeof PHASE_STAGE;
export const PROGRESS_PHASES = Object.keys(PHASE_STAGE) as [ProgressPhase, ...ProgressPhase[]];

/** Live figures of the k6 run in progress. */
export const LiveFigures = z.strictObject({
  elapsedS: z.number().nonnegative(),
  requests: z.number().int().nonnegative(),
  iterations: z.number().int().nonnegative(),
  dropped: z.number().int().nonnegative(),
  /** iterations per second since the previous report (null on the first) */
  achievedRate: z.number().nonnegative().nullable(),
  /** share of failed requests so far (k6 http_req_failed) */
  failedShare: z.number().min(0).max(1),
  /** p99 of every request so far, ms */
  p99Ms: z.number().nonnegative().nullable(),
});
export type LiveFigures = z.infer<typeof LiveFigures>;

/**
 * One progress event. The CLI's live line, the worker's Run.stage/progress and
 * the run page all render these (describeProgress), never parse text.
 */
export const ProgressEvent = z.strictObject({
  /** the cell (`checkout/uniform`), `analytics` for the populate step of both analytics cells, or `-` for the whole run */
  cell: z.string(),
  phase: z.enum(PROGRESS_PHASES),
  /** what is happening, for people: "coarse step 2 at 100/s", "sustainable 180/s ..." */
  detail: z.string(),
  /** a note to keep in a log (why a cell has no breakdown, ...) rather than a status the next event replaces */
  note: z.boolean().optional(),
  /** the arrival rate offered in this k6 run */
  offeredRate: z.number().nonnegative().optional(),
  /** the planned duration of this k6 run */
  stepS: z.number().positive().optional(),
  live: LiveFigures.optional(),
});
export type ProgressEvent = z.infer<typeof ProgressEvent>;

export const stageOf = (e: Pick<ProgressEvent, "phase">): PipelineStage => PHASE_STAGE[e.phase];

/** `checkout/uniform`, `analytics/*` (both analytics cells) or `all cells`. */
export function cellLabel(cell: string): string {
  if (cell === "-") return "all cells";
  return cell.includes("/") ? cell : `${cell}/*`;
}

/** The parts of a progress event as people read them, in order: where, what, and the live figures. */
export function describeProgress(e: ProgressEvent): string[] {
  const l = e.live;
  return [
    `[${cellLabel(e.cell)}] ${e.phase}`,
    e.offeredRate !== undefined ? `${e.detail} · offered ${e.offeredRate}/s` : e.detail,
    l?.achievedRate != null ? `achieved ${l.achievedRate.toFixed(0)}/s` : "",
    l?.p99Ms != null ? `p99 ${l.p99Ms.toFixed(1)} ms` : "",
    l ? `errors ${(l.failedShare * 100).toFixed(1)}%` : "",
    l?.dropped ? `dropped ${l.dropped}` : "",
  ].filter(Boolean);
}

/** The share (0-1) of the current k6 run done, when it has a planned duration. */
export function phaseFraction(e: ProgressEvent): number | undefined {
  return e.stepS && e.live ? Math.min(1, e.live.elapsedS / (e.stepS + 1)) : undefined;
}
