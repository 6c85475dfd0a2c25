/**
 * What a result document says about the trial it was: which campaign, trial
 * and round it belongs to, and how noisy the machine was while it ran. Both
 * are optional fields of the result document (a run outside a campaign has
 * no tag; documents written before noise was measured have none).
 */
import { z } from "zod";

/**
 * A trial is busy when processes outside the run used more than a quarter of
 * a core on average (another benchmark, a build, a test suite on a shared
 * machine), or when the hypervisor took more than 5% of the CPU time (steal).
 * Either moves a knee by more than the 10% a published figure allows
 * (docs/measurements.md): such a trial is repeated, a bounded number of times.
 */
export const BUSY_OUTSIDE_CORES = 0.25;
export const BUSY_STEAL_SHARE = 0.05;

const nonneg = z.number().nonnegative();
const LoadAverage = z.tuple([nonneg, nonneg, nonneg]);

export const Noise = z.strictObject({
  /** /proc/loadavg (1, 5 and 15 minutes) when the trial started and when it ended */
  loadAverage: z.strictObject({ start: LoadAverage, end: LoadAverage }),
  /** wall time the noise was measured over (the run's measurement, after verification) */
  wallS: nonneg,
  /** CPUs /proc/stat counts */
  cpus: z.number().int().positive(),
  /** the run's own CPU (sfbench, its k6 processes, the target's processes), average cores */
  runCores: nonneg,
  /** every other process's CPU (all CPU time /proc/stat counts as used, less steal and the run's own), average cores */
  outsideCores: nonneg,
  /** share of all CPU time taken by the hypervisor (steal) */
  stealShare: z.number().min(0).max(1),
  /** the thresholds judged against (BUSY_OUTSIDE_CORES, BUSY_STEAL_SHARE when it ran) */
  thresholds: z.strictObject({ outsideCores: nonneg, stealShare: nonneg }),
  busy: z.boolean(),
  /** why it is busy, as sentences; empty when it is not */
  busyBecause: z.array(z.string().min(1)),
});
export type Noise = z.infer<typeof Noise>;

/** Why a trial with these figures is busy (empty: it is not). */
export function busyReasons(n: Pick<Noise, "outsideCores" | "stealShare">, t = { outsideCores: BUSY_OUTSIDE_CORES, stealShare: BUSY_STEAL_SHARE }): string[] {
  const out: string[] = [];
  if (n.outsideCores > t.outsideCores) out.push(`processes outside the run used ${n.outsideCores.toFixed(2)} cores on average (more than ${t.outsideCores})`);
  if (n.stealShare > t.stealShare) out.push(`steal took ${(n.stealShare * 100).toFixed(1)}% of the CPU time (more than ${(t.stealShare * 100).toFixed(0)}%)`);
  return out;
}

/** The trial a result document was: its campaign, the trial's index (1-based), its round, and which attempt (a busy trial is repeated). */
export const TrialTag = z.strictObject({
  campaignId: z.uuid(),
  trial: z.number().int().positive(),
  round: z.number().int().positive(),
  attempt: z.number().int().positive(),
});
export type TrialTag = z.infer<typeof TrialTag>;

/**
 * The populated state a campaign builds once per target (docs/running.md,
 * "The populated state"): a fresh start of the target, verified, seeded and,
 * when the campaign has an analytics cell, populated; then stopped and every
 * data directory of it and its own servers copied while stopped. Each trial
 * starts from a cold copy of it, and its result document names the build.
 */
export const PopulatedState = z.strictObject({
  /** the build's id: its raw data (the seed's and populate's k6 output) is under runs/<buildId>/ */
  buildId: z.uuid(),
  builtAt: z.iso.datetime({ offset: true }),
  /** products seeded */
  products: z.number().int().positive(),
  /** populate's checkouts; absent when no cell needed the co-purchase graph */
  populate: z.number().int().positive().optional(),
  /** how long the seed and the populate phase took, once, instead of once per trial */
  buildS: z.number().nonnegative(),
  /** the copy of the stopped target's data, in bytes */
  bytes: z.number().int().nonnegative(),
});
export type PopulatedState = z.infer<typeof PopulatedState>;

/**
 * Whether a trial's attempt is run again: it completed while the machine was
 * busy and repeats are left. A failed run is not repeated (a busy machine
 * does not make a target fail; its failure is the figure). The CLI's
 * campaigns and the worker's follow the same rule.
 */
export function repeatBusy(doc: { status: string; noise?: Pick<Noise, "busy"> }, attempt: number, busyRepeats: number): boolean {
  return doc.noise?.busy === true && doc.status === "completed" && attempt <= busyRepeats;
}
