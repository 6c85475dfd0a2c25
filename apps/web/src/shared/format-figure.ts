/** How a trial figure reads: "1,210 [1,150, 1,270] (75%), n=3"; a single run: "1,210, n=1 (provisional)". */
import { CONFIDENCE, type Interval } from "@sfbench/core/stats";
import { fmtRate } from "./format.ts";
import { provisional, type TrialFigure } from "./trial-figures.ts";

/** How sure an interval is: its coverage as a whole percent ("75%"); a t interval of an older campaign is 95% by construction. */
export function fmtCoverage(i: Interval): string {
  return `${Math.round((i.coverage ?? CONFIDENCE) * 100)}%`;
}

/** "[1,150, 1,270] (75%)": the interval of the median and how likely it holds it. */
export function fmtInterval(f: Pick<TrialFigure, "interval">): string {
  return f.interval ? `[${fmtRate(f.interval.low)}, ${fmtRate(f.interval.high)}] (${fmtCoverage(f.interval)})` : "";
}

export function fmtFigure(f: TrialFigure): string {
  const figure = f.interval ? `${fmtRate(f.median)} ${fmtInterval(f)}, n=${f.n}` : `${fmtRate(f.median)}, n=${f.n}`;
  return provisional(f) ? `${figure} (provisional)` : figure;
}

/** "×0.84 [0.79, 0.90] of node-postgres" */
export function fmtRatio(r: NonNullable<TrialFigure["ratio"]>): string {
  const x = (v: number) => v.toFixed(2);
  return `×${x(r.ratio)}${r.interval ? ` [${x(r.interval.low)}, ${x(r.interval.high)}]` : ""} of ${r.reference}`;
}
