/**
 * The campaign document: several targets' trials of the same cells, run in
 * interleaved rounds (every round one trial of each target, in a shuffled
 * order), and the statistics over them. Versioned, validated on write,
 * written once next to its trials' result documents
 * (results/campaigns/<date>-<id>/campaign.json; docs/running.md, "Trials and
 * campaigns"). The leaderboard reads `statistics` for the figures and
 * `trials` to reach each trial's own document.
 */
import { z } from "zod";
import { Distribution, Experiment, Profile, Workload } from "./contract.ts";
import { Environment } from "./result.ts";
import { Noise, PopulatedState } from "./trial.ts";

export const CAMPAIGN_SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();
const positive = z.number().int().positive();
/** an interval; `coverage` (core stats) with a median's order statistics, absent with a t interval (95% by construction) */
const Interval = z.strictObject({ low: z.number(), high: z.number(), coverage: z.number().min(0).max(1).optional() });

/** One trial (one attempt of it: a busy trial is repeated and both attempts are listed). */
export const CampaignTrial = z.strictObject({
  target: z.string().min(1),
  round: positive,
  trial: positive,
  attempt: positive,
  runId: z.uuid(),
  /** the result document, relative to the campaign document's folder */
  document: z.string().min(1),
  status: z.enum(["completed", "failed", "interrupted"]),
  /** in the statistics: the last attempt of its trial (a busy attempt that was repeated is not) */
  counted: z.boolean(),
  /** the trial's noise, copied from its document (absent when the run failed before measuring) */
  noise: Noise.optional(),
  /** why the trial gives no figure for a cell: the run's error (stage: message), or a cell's invalid reason (cell: reason); empty when every cell counts */
  notes: z.array(z.string().min(1)).default([]),
});
export type CampaignTrial = z.infer<typeof CampaignTrial>;

/** The statistics of one target's cell over its counted trials (core stats.ts says how each is computed). */
export const CellStatistics = z.strictObject({
  target: z.string().min(1),
  workload: Workload,
  distribution: Distribution,
  /** what is summarized: the max-throughput ramp's sustainable rate (the knee), an offered rate */
  metric: z.literal("sustainableRate"),
  /** checkouts/s, or queries/s for analytics */
  unit: z.string().min(1),
  /** per counted trial in round order: its sustainable rate, null when the cell was invalid, missing or had no sustainable step */
  values: z.array(z.number().nonnegative().nullable()),
  /** how many values are numbers (the statistics are over these) */
  n: count,
  /** counted trials whose cell was invalid or missing (failed run) */
  invalid: count,
  /** counted trials that were busy (their repeats ran out) */
  busy: count,
  median: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  mean: z.number().nullable(),
  cv: z.number().nullable(),
  /**
   * the distribution-free interval of the median (order statistics, with its
   * coverage); null with fewer than 2 values. Campaigns written before it
   * carry Student's t interval of the mean here, without a coverage.
   */
  interval: Interval.nullable(),
  /** the interval's farthest end from the median as a share of it ("within x% of the median") */
  withinShareOfMedian: z.number().nullable(),
  /** with a reference target in the campaign: this target's value over the reference's in the same round (geometric mean) and its 95% interval */
  ratioToReference: z.strictObject({ reference: z.string().min(1), n: positive, ratio: z.number().positive(), interval: Interval.nullable() }).optional(),
  /**
   * the cores the target used at its knee as a share of the cores it was given
   * (result maxThroughput.kneeCores), median and range over the trials with a
   * figure; absent when no trial recorded it (campaigns written before the
   * ramp sampled the target). Well below 1, the knee is something the target
   * waits on, not its CPU.
   */
  kneeCoreShare: z.strictObject({ n: positive, median: z.number().nonnegative(), min: z.number().nonnegative(), max: z.number().nonnegative() }).optional(),
});
export type CellStatistics = z.infer<typeof CellStatistics>;

export const CampaignDocument = z.strictObject({
  $schema: z.string().optional(),
  schemaVersion: z.literal(CAMPAIGN_SCHEMA_VERSION),
  campaignId: z.uuid(),
  /** trials: sfbench run --trials (one target); campaign: sfbench campaign */
  kind: z.enum(["trials", "campaign"]),
  /** failed: something outside a trial stopped the campaign (error says what); the statistics cover the trials that ran */
  status: z.enum(["completed", "failed"]),
  error: z.string().optional(),
  startedAt: z.iso.datetime({ offset: true }),
  finishedAt: z.iso.datetime({ offset: true }),
  profile: Profile,
  experiment: Experiment,
  cells: z.array(z.strictObject({ workload: Workload, distribution: Distribution })).min(1),
  /** the runs' --seed (the same load in every trial) */
  runSeed: count,
  /** seeds the order of the targets within each round */
  orderSeed: count,
  targets: z.array(z.strictObject({ name: z.string().min(1), version: z.string().min(1), manifestDigest: z.string().min(1) })).min(1),
  reference: z.string().min(1).optional(),
  trialsPerTarget: positive,
  /** how often a busy trial may be repeated */
  busyRepeats: count,
  /** how many attempts were repeated because they were busy */
  busyRepeated: count,
  /** the machine of the first trial (every trial runs on this one) */
  machine: Environment.pick({ kind: true, cpuModel: true, cores: true, memoryBytes: true, os: true, node: true, k6Version: true, gitSha: true }),
  rounds: z.array(z.strictObject({ round: positive, order: z.array(z.string().min(1)).min(1) })),
  trials: z.array(CampaignTrial),
  /**
   * per target: the populated state its trials started from, or why it has
   * none (its provider cannot copy its data, or the build failed) and every
   * trial seeded and populated on its own; absent in older campaigns
   */
  populatedStates: z.array(z.strictObject({ target: z.string().min(1), state: PopulatedState.optional(), reason: z.string().min(1).optional() })).optional(),
  statistics: z.array(CellStatistics),
  /** per cell: the targets by median, in groups whose intervals of the median overlap (tied) */
  tieGroups: z.array(z.strictObject({ workload: Workload, distribution: Distribution, groups: z.array(z.array(z.string().min(1))) })),
});
export type CampaignDocument = z.infer<typeof CampaignDocument>;

export type CampaignParse = { ok: true; campaign: CampaignDocument } | { ok: false; errors: string[] };

export function parseCampaign(json: unknown): CampaignParse {
  const r = CampaignDocument.safeParse(json);
  if (r.success) return { ok: true, campaign: r.data };
  return { ok: false, errors: r.error.issues.map((i) => `${i.path.join(".") || "(document)"}: ${i.message}`) };
}
