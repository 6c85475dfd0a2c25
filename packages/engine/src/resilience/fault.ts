/**
 * The fault experiment's analysis: a stable phase at a fixed
 * arrival rate with one kill -9 in it. From the per-second series and the
 * failed requests: the error window (first to last failed request after the
 * kill), the time until throughput is back within `tolerance` below the mean
 * of the seconds before the kill (and stays there `sustainS` seconds), the
 * requests lost (no answer) and failed (an error status), the successful
 * requests missing against the baseline, and the latency spike.
 *
 * "Back" means no more than `tolerance` below the baseline: a burst above it
 * (the system answering a backlog) is capacity restored, not capacity lacking.
 */
import type { FaultResult, SeriesPoint } from "@sfbench/core";
import { checkSeries, firstSustained, maxOf, mean, median, secondsBefore, secondsBetween } from "./series-window.ts";

/** One request of the phase that did not succeed or get a business rejection: status 0 = no answer (refused, reset, timeout). */
export interface FailedRequest {
  /** seconds from the run's start (the series' t origin) when the request ended */
  atS: number;
  status: number;
}

export interface FaultAnalysisInput {
  /** the phase's per-second series of the measured request */
  series: readonly SeriesPoint[];
  /** seconds from the run's start when the kill was sent */
  faultAtS: number;
  offeredRate: number;
  /** every failed request of the phase (the analysis takes those at or after the kill) */
  failures: readonly FailedRequest[];
  /** whole seconds before the kill that make the baseline (default 30, fewer when the phase has fewer) */
  baselineSeconds?: number;
  /** default 0.1: within 10% */
  tolerance?: number;
  /** seconds throughput must stay back before it counts as recovered (default 3) */
  sustainS?: number;
}

/** Everything of FaultResult the series says; the caller adds what was killed and the audit's anomalies. */
export type FaultAnalysis = Omit<FaultResult, "kill" | "anomalies">;

export function analyzeFault(input: FaultAnalysisInput): FaultAnalysis {
  const { series, faultAtS } = input;
  const tolerance = input.tolerance ?? 0.1;
  const sustainS = input.sustainS ?? 3;
  if (!(tolerance > 0 && tolerance <= 1)) throw new Error(`tolerance: ${tolerance} must be above 0 and at most 1`);
  if (!(Number.isInteger(sustainS) && sustainS >= 1)) throw new Error(`sustainS: ${sustainS} must be a whole number of seconds, at least 1`);
  checkSeries(series, "series");
  const baseline = secondsBefore(series, faultAtS, input.baselineSeconds ?? 30, "faultAtS");
  const baselineRate = mean(baseline.map((p) => p.successful));
  const threshold = (1 - tolerance) * baselineRate;

  const back = firstSustained(series, faultAtS, sustainS, (p) => p.successful >= threshold);
  const recoveredAfterS = back ? Math.max(0, back.t - faultAtS) : null;
  const notRecovered = back ? undefined : whyNotRecovered(series, faultAtS, threshold, tolerance, sustainS);
  const disturbed = secondsBetween(series, faultAtS, back?.t);
  const spike = secondsBetween(series, faultAtS, back ? back.t + sustainS : undefined);

  const after = input.failures.filter((f) => f.atS >= faultAtS);
  const times = after.map((f) => f.atS);
  const errorWindow = after.length
    ? { startS: Math.min(...times) - faultAtS, endS: Math.max(...times) - faultAtS, durationS: Math.max(...times) - Math.min(...times) }
    : null;

  return {
    offeredRate: input.offeredRate,
    baselineRate,
    baselineSeconds: baseline.length,
    errorWindow,
    recoveredAfterS,
    ...(notRecovered ? { notRecovered } : {}),
    tolerance,
    sustainS,
    lost: after.filter((f) => f.status === 0).length,
    failed: after.filter((f) => f.status !== 0).length,
    dropped: secondsBetween(series, faultAtS).reduce((s, p) => s + p.dropped, 0),
    missingSuccessful: disturbed.reduce((s, p) => s + Math.max(0, baselineRate - p.successful), 0),
    minRate: spike.length ? Math.min(...spike.map((p) => p.successful)) : 0,
    baselineP99Ms: median(baseline.map((p) => p.p99).filter((x): x is number => x !== null)),
    peakP99Ms: maxOf(spike.map((p) => p.p99)),
  };
}

/**
 * What the seconds after the kill showed when throughput never stayed back:
 * a phase too short after the kill for `sustainS` seconds says so, which a
 * slow restart on a loaded machine explains, and is not a lost capacity.
 */
function whyNotRecovered(series: readonly SeriesPoint[], faultAtS: number, threshold: number, tolerance: number, sustainS: number): string {
  const after = secondsBetween(series, faultAtS);
  const need = `${sustainS} s in a row at or above ${threshold.toFixed(1)}/s (${Math.round(tolerance * 100)}% below the baseline)`;
  if (after.length < sustainS) return `the phase had ${after.length} s of series after the kill, fewer than the ${need} it takes to count as recovered`;
  const good = after.filter((p) => p.successful >= threshold);
  const best = Math.max(...after.map((p) => p.successful));
  const last = after[after.length - 1]!;
  return `in the ${after.length} s after the kill, ${good.length} s reached the threshold but never ${need}; best ${best.toFixed(1)}/s, last second ${last.successful.toFixed(1)}/s`;
}
