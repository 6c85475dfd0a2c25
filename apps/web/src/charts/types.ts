/**
 * The data the charts draw: plain JSON (no class instances, no BigInt, no
 * undefined values that matter), built on the server by buildCompareData /
 * buildRunData and handed to the client components.
 *
 * Series of several systems are keyed by a short, path-safe id ("s0", "s1",
 * ...) rather than by slug, because Recharts reads a dotted dataKey as a path.
 */
import type { ResultDocument } from "@sfbench/core";

export type Workload = ResultDocument["cells"][number]["workload"];
export type Distribution = ResultDocument["cells"][number]["distribution"];

/** One plotted system: key is the dataKey prefix in every row; color is the same in every chart. */
export interface SeriesRef {
  key: string;
  slug: string;
  name: string;
  color: string;
}

/** A system left out of every chart, and why (e.g. its run failed). */
export interface ExcludedSystem {
  slug: string;
  name: string;
  reason: string;
}

export interface CellRef {
  /** "<workload>/<distribution>" */
  key: string;
  workload: Workload;
  distribution: Distribution;
  label: string;
}

/** A system whose cell gives no numbers (invalid, absent, or missing a part), and why. */
export interface CellNote {
  key: string;
  name: string;
  reason: string;
}

/** Latency distribution of one histogram, in ms. */
export interface LatencyBox {
  count: number;
  mean: number;
  min: number;
  p1: number;
  p25: number;
  p50: number;
  p75: number;
  p99: number;
  p999: number;
  max: number;
}

export interface EcdfPoint {
  /** latency, ms (> 0, so that it fits a log axis) */
  ms: number;
  /** share of requests at or below ms, 0..1 */
  p: number;
}

export interface LatencyDistribution extends LatencyBox {
  /** monotone in both coordinates, ending at p = 1 */
  ecdf: EcdfPoint[];
}

/** A row of a chart: a category or x value plus one or more numbers per series. */
export type Row = Record<string, string | number | null>;

export interface ThroughputData {
  /** rows {t, <key>: successful/s, <key>_ma: trailing 10 s mean or null} */
  rows: Row[];
  windowS: number;
  /** 1, or the number of seconds averaged into one point of a long series */
  bucketS: number;
  /** keys whose series is shorter than the window: their average is over what exists */
  partial: string[];
  /** max of the moving average per key (as recorded in the result document) */
  maxMovingAvg10s: Record<string, number>;
}

export interface LatencyData {
  boxes: Array<LatencyBox & { key: string }>;
  ecdf: Record<string, EcdfPoint[]>;
  /** [min, max] over every box, for a shared log axis */
  domain: [number, number] | null;
}

/** p50/p99 per category (cart size, shape, top/depth) per system: rows {x, <key>_p50, <key>_p99, <key>_n}. */
export interface ByTagData {
  rows: Row[];
  /** systems that have at least one value */
  keys: string[];
}

export interface AnalyticsData {
  byShape: ByTagData;
  /** linear shape (top = 1): x = depth */
  linear: ByTagData;
  /** fan-out (depth = 2): x = top */
  fanOut: ByTagData;
  /** exponential (top >= 2, depth >= 3): x = "top/depth", ordered by top^depth */
  exponential: ByTagData;
}

export interface BreakdownComponent {
  key: string;
  label: string;
  color: string;
}

export type BreakdownData =
  | { available: false; reason: string; notes: CellNote[] }
  | {
      available: true;
      components: BreakdownComponent[];
      /** rows {label, system, group, <component key>: ms, total: ms} */
      rows: Row[];
      notes: CellNote[];
      /** per system: how many of the phase's requests the breakdown covers and whether its parts add up; flagged ones are not fact */
      coverage: BreakdownCoverageNote[];
    };

export interface BreakdownCoverageNote {
  key: string;
  name: string;
  /** "complete traces for 97.2% of 1,234 requests; parts 0.4% off the measured latency" */
  text: string;
  flagged: boolean;
  /** why it is flagged (empty when it is not) */
  flags: string[];
}

export interface CompareCell {
  ref: CellRef;
  /** systems with numbers in this cell */
  plotted: string[];
  /** systems without numbers in this cell, with the reason (invalid cells show their invalidReason) */
  notes: CellNote[];
  throughput: ThroughputData;
  latency: LatencyData;
  /** checkout and contention cells: latency by number of products in the cart */
  cartSize: ByTagData | null;
  /** analytics cells */
  analytics: AnalyticsData | null;
  breakdown: BreakdownData;
}

export interface CostData {
  /** rows {cell: label, <key>_cpu: core-s per 1000 requests, <key>_tpc: requests/s per core}; one per cell */
  rows: Row[];
  notes: CellNote[];
  available: boolean;
}

export interface ScalabilityData {
  available: boolean;
  reason: string | null;
  /** rows {nodes, <key>: sustainable rate or null} ordered by nodes */
  rows: Row[];
  keys: string[];
  /** systems without a sustainable rate at some node count */
  notes: CellNote[];
}

export interface LocData {
  available: boolean;
  rows: Array<{ key: string; name: string; app: number; gateway: number; languages: string[] }>;
  notes: CellNote[];
}

export interface RatingsData {
  available: boolean;
  /** rows {metric, <key>: mean} for "Programming model" and "Understandability" */
  rows: Row[];
  counts: Record<string, number>;
  notes: CellNote[];
}

export interface CompareData {
  systems: SeriesRef[];
  excluded: ExcludedSystem[];
  cells: CompareCell[];
  defaultCell: string | null;
  cost: CostData;
  scalability: ScalabilityData;
  loc: LocData;
  ratings: RatingsData;
}

export interface RampStep {
  step: number;
  offered: number;
  achieved: number;
  completedShare: number;
  errorRate: number;
  p99: number;
  durationS: number;
  sustainable: boolean;
  failedBecause: string[];
  /** failed narrowly and was run again at once: the next step's verdict is the rate's */
  repeated: boolean;
  /** the cores the target's processes used while the step's requests ran; null when the document does not say */
  targetCores: number | null;
}

export interface RampData {
  steps: RampStep[];
  sustainableRate: number | null;
  maxMovingAvg10s: number;
  movingAvgPartial: boolean;
  /** what the rates count: "checkouts/s" or "queries/s" */
  unit: string;
  /** the cores the target used at its knee, and the cores it was given (null when the document does not say) */
  kneeCores: { used: number; given: number | null } | null;
  /** how the knee search went; null for documents that did not record it */
  knee: {
    stoppedBecause: string;
    /** the sentence for stoppedBecause */
    reason: string;
    firstUnsustainableRate: number | null;
    resolution: number | null;
    targetResolution: number | null;
    /** whether the leaderboard ranks this sustainable rate, and if not why */
    ranked: boolean;
    rankNote: string;
    /** the procedure around the search (warm-up, quiet time, confirmation), in words; null for documents from before it */
    procedure: string | null;
  } | null;
}

export interface RunSeriesData {
  /** rows {t, offered, successful, ma, rejected, errors, dropped, p50, p99} */
  rows: Row[];
  windowS: number;
  /** 1, or the number of seconds averaged into one point of a long series */
  bucketS: number;
  partial: boolean;
}

export interface RunCostSummary {
  /** null when the stable phase completed no request: the cost of one is unknown */
  coreSecondsPer1000: number | null;
  throughputPerCore: number;
  peakRssBytes: number;
  generatorCpuShare: number;
  /** coreSecondsPer1000 by what each of the target's processes is, largest first; empty when the run did not split it */
  byProcess: { label: string; coreSeconds: number }[];
}

export interface RunCell {
  ref: CellRef;
  valid: boolean;
  /** set when valid is false: shown instead of any number */
  invalidReason: string | null;
  ramp: RampData | null;
  series: RunSeriesData | null;
  latency: LatencyData | null;
  cartSize: ByTagData | null;
  analytics: AnalyticsData | null;
  breakdown: BreakdownData | null;
  /** which phase the breakdown's spans come from, and what tracing cost there against the untraced stable phase */
  breakdownPhase: string | null;
  cost: RunCostSummary | null;
  anomalies: { total: number; kinds: Record<string, number>; examples: string[] } | null;
}

export interface RunData {
  runId: string;
  system: SeriesRef;
  title: string;
  status: "completed" | "failed" | "interrupted";
  /** set for failed runs: nothing of theirs is plotted */
  failed: { stage: string; message: string; reason: string } | null;
  environment: string;
  profile: string;
  cells: RunCell[];
  defaultCell: string | null;
}
