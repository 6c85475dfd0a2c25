/**
 * The elastic scale-up analysis: a stable phase above one node's
 * sustainable rate, one node added in it. The capacity "shows" when
 * throughput reaches baseline + `share` x (settled - baseline) and stays there
 * `sustainS` seconds, where the baseline is the mean of the seconds before the
 * node was added and the settled rate the mean of the phase's last seconds.
 * Around it: the worst p99 and the errors until the capacity showed.
 */
import type { ScaleUpResult, SeriesPoint } from "@sfbench/core";
import { checkSeries, firstSustained, maxOf, mean, median, secondsBefore, secondsBetween } from "./series-window.ts";

export interface ScaleUpInput {
  series: readonly SeriesPoint[];
  /** seconds from the run's start when addNode was called */
  addedAtS: number;
  /** seconds from the call until the new node answered health 200 (addNode's duration) */
  nodeHealthyAfterS: number | null;
  offeredRate: number;
  nodesBefore: number;
  nodesAfter: number;
  /** whole seconds before the call for the baseline (default 10) */
  baselineSeconds?: number;
  /** the phase's last seconds that make the settled rate (default 10) */
  settleSeconds?: number;
  /** share of the gain that counts as shown (default 0.9) */
  share?: number;
  sustainS?: number;
  /** a gain below this share of the baseline is no gain (default 0.05) */
  minGain?: number;
}

export function analyzeScaleUp(input: ScaleUpInput): ScaleUpResult {
  const { series, addedAtS } = input;
  const settleSeconds = input.settleSeconds ?? 10;
  const share = input.share ?? 0.9;
  const sustainS = input.sustainS ?? 3;
  if (!(share > 0 && share <= 1)) throw new Error(`share: ${share} must be above 0 and at most 1`);
  checkSeries(series, "series");
  const baseline = secondsBefore(series, addedAtS, input.baselineSeconds ?? 10, "addedAtS");
  const after = series.filter((p) => p.t >= Math.ceil(addedAtS));
  if (after.length < settleSeconds + sustainS) {
    throw new Error(`series: ${after.length} s after the node was added; the analysis needs at least settleSeconds + sustainS = ${settleSeconds + sustainS} s`);
  }
  const baselineRate = mean(baseline.map((p) => p.successful));
  if (baselineRate <= 0)
    throw new Error(`series: no successful request in the ${baseline.length} s before the node was added; there is nothing to scale up from`);
  const settledRate = mean(after.slice(-settleSeconds).map((p) => p.successful));
  const gained = settledRate - baselineRate > (input.minGain ?? 0.05) * baselineRate;
  const level = baselineRate + share * (settledRate - baselineRate);
  const shown = gained ? firstSustained(series, addedAtS, sustainS, (p) => p.successful >= level) : undefined;
  const window = secondsBetween(series, addedAtS, shown ? shown.t + sustainS : undefined);
  return {
    offeredRate: input.offeredRate,
    nodesBefore: input.nodesBefore,
    nodesAfter: input.nodesAfter,
    addedAtS,
    nodeHealthyAfterS: input.nodeHealthyAfterS,
    baselineRate,
    settledRate,
    settleSeconds,
    capacityShownAfterS: shown ? Math.max(0, shown.t - addedAtS) : null,
    gain: (settledRate - baselineRate) / baselineRate,
    baselineP99Ms: median(baseline.map((p) => p.p99).filter((x): x is number => x !== null)),
    peakP99Ms: maxOf(window.map((p) => p.p99)),
    errors: secondsBetween(series, addedAtS, shown ? shown.t : undefined).reduce((s, p) => s + p.errors, 0),
  };
}
