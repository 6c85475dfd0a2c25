/**
 * The data of the microbenchmark and resilience charts (plain JSON, built on
 * the server by data/micro.ts and data/resilience.ts). Every number comes from
 * a stored result document; what is missing carries the reason instead.
 */
import type { CellNote, EcdfPoint, Row, RunSeriesData, ScalabilityData, SeriesRef } from "./types.ts";

/** One line of an eCDF chart: a system or a configuration. */
export interface EcdfLine {
  key: string;
  name: string;
  color: string;
  /** ms, share of round trips at or below it; ends at the share within the last bound */
  points: EcdfPoint[];
  /** round trips above the last bound (5 s): the line ends below 1 by their share */
  beyond: number;
  total: number;
}

/** One route at one rate, p50 in ms: the stacked bar (in-handler + overhead). */
export interface OverheadBar {
  label: string;
  route: string;
  parameters: string;
  offeredRate: number;
  achievedRate: number;
  requests: number;
  errors: number;
  handlerMs: number;
  overheadMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export interface PingPongSummary {
  key: string;
  label: string;
  pairs: number;
  bytes: number;
  messages: number;
  messagesPerS: number;
  totalMs: number;
  /** null: beyond the last bound */
  p50Ms: number | null;
  p99Ms: number | null;
  requestMs: number;
}

export interface DivideSummary {
  items: number;
  fanout: number;
  leaf: number;
  entities: number;
  totalMs: number;
  requestMs: number;
}

export interface BigSummary {
  entities: number;
  messages: number;
  messagesPerS: number;
  totalMs: number;
  requestMs: number;
}

export type MicroRunData =
  | { supported: false; reason: string }
  | {
      supported: true;
      overhead: OverheadBar[];
      emptyMaxRate: { sustainableRate: number | null; resolution: number | null };
      pingpong: PingPongSummary[];
      /** one line per ping-pong configuration */
      ecdf: EcdfLine[];
      divide: DivideSummary[];
      big: BigSummary[];
      notes: string[];
    };

/** Compare page: the micro charts side by side. */
export interface MicroCompareData {
  systems: SeriesRef[];
  /** systems with no micro numbers, and why (not measured, not supported) */
  notes: CellNote[];
  /** empty at each rate: rows {rate, <key>_handler, <key>_overhead} (p50, ms) */
  overhead: { rows: Row[]; keys: string[] };
  /** one eCDF per ping-pong configuration, one line per system */
  pingpong: Array<{ key: string; label: string; lines: EcdfLine[] }>;
  /** rows {entities, <key>: messages/s} */
  big: { rows: Row[]; keys: string[] };
}

/** A cell's per-second series with the moment of a fault or an added node marked. */
export interface PhaseSeriesData {
  cell: string;
  series: RunSeriesData | null;
  marker: { atS: number; label: string };
}

export interface FaultView extends PhaseSeriesData {
  kind: "fault";
  figures: Array<{ label: string; value: string }>;
  anomalies: Record<string, number> | null;
}

export interface ScaleUpView extends PhaseSeriesData {
  kind: "scale-up";
  figures: Array<{ label: string; value: string }>;
}

export interface RecoveryView {
  /** rows {entities, health, checkout} in seconds (null: not within the timeout) ordered by entities */
  rows: Row[];
  points: Array<{
    products: number;
    users: number;
    healthAfterS: number | null;
    firstCheckoutAfterS: number | null;
    checked: number;
    missing: number;
    changed: number;
    failure: string | null;
  }>;
}

export interface ScalabilityView {
  environment: string;
  routing: string;
  chart: ScalabilityData;
  points: Array<{ nodes: number; maxThroughput: number; sustainableRate: number | null; speedup: number; efficiency: number }>;
}

export interface ResilienceRunData {
  faults: FaultView[];
  scaleUps: ScaleUpView[];
  recovery: RecoveryView | null;
  scalability: ScalabilityView | null;
  unsupported: Array<{ experiment: string; reason: string }>;
}
