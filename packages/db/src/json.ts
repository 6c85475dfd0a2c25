/**
 * The shapes of the JSON columns, derived from the core zod schemas (no second
 * copy): what import writes and what readers may cast a column's value to.
 * Every encoded HDR histogram of a cell lives in CellResult.histograms, so the
 * other columns stay small enough to load for tables and charts.
 */
import { LANGUAGES, type Anomalies, type Environment, type OutcomeSummary, type SeriesPoint, type StepResult, type TargetManifest } from "@sfbench/core";
import { z } from "zod";

/** TargetVersion.loc: lines of code per language, split into application and gateway code. */
export const LocCounts = z.partialRecord(z.enum(LANGUAGES), z.strictObject({ app: z.number().int().nonnegative(), gateway: z.number().int().nonnegative() }));
export type LocCounts = z.infer<typeof LocCounts>;

/** TargetVersion.manifest */
export type ManifestJson = TargetManifest;
/** Run.environment */
export type EnvironmentJson = Environment;
/** Run.rawData */
export interface RawDataJson {
  dir: string;
  files: string[];
}

/** CellResult.steps[i] */
export type StepRow = Omit<StepResult, "histogram">;
/** an OutcomeSummary without its histogram */
export type OutcomeRow = Omit<OutcomeSummary, "histogram">;
/** CellResult.latencyByTag */
export interface LatencyByTag {
  /** key: number of products in the cart */
  byCartSize?: Record<string, OutcomeRow>;
  /** key: linear | fan-out | exponential */
  byShape?: Record<string, OutcomeRow>;
  /** key: "<top>/<depth>" */
  byTopDepth?: Record<string, OutcomeRow>;
}
/** CellResult.setupOps */
export type SetupOps = Record<string, OutcomeRow>;
/** CellResult.series */
export type SeriesJson = SeriesPoint[];
/** CellResult.anomalies: the audit's counts by kind, total, examples */
export type AnomaliesJson = Anomalies;

/** CellResult.histograms: base64 compressed HDR histograms in microseconds (see core result.ts). */
export interface CellHistograms {
  /** the stable-load phase */
  stable?: string;
  /** aligned with CellResult.steps; null where a step has none */
  steps: (string | null)[];
  byCartSize?: Record<string, string>;
  byShape?: Record<string, string>;
  byTopDepth?: Record<string, string>;
  setupOps?: Record<string, string>;
}
