/**
 * A system's figure on the board: the median of its counted trials with their
 * spread and the interval of the median (core stats: order statistics, with
 * their coverage; the same numbers the CLI writes into a
 * campaign document), and its ratio to the reference target measured in the
 * same rounds. One run is a figure too, but a provisional one: no interval,
 * so nothing can be said about how far the next run would move it; so are
 * two trials (MIN_RANKED_TRIALS).
 */
import { pairedRatio, summarize, type Interval, type Ratio } from "@sfbench/core/stats";

/** The reference target of a campaign (docs/running.md): the plain Node.js + PostgreSQL implementation. */
export const REFERENCE_TARGET = "node-postgres";

export interface TrialFigure {
  /** trials counted: ranked cells of the campaign's trials, a repeated busy trial once (its last attempt) */
  n: number;
  median: number;
  min: number;
  max: number;
  /** the interval of the median (order statistics) with its coverage; null for a single value */
  interval: Interval | null;
  /** the interval's farthest end from the median, as a share of it */
  withinShareOfMedian: number | null;
  /** this system over the reference in the same rounds; absent outside a campaign with the reference, and for the reference itself */
  ratio?: Ratio & { reference: string };
}

/** One counted trial: its round in the campaign (null for a run outside one) and the sustainable rate of a ranked cell (null otherwise). */
export interface TrialValue {
  round: number | null;
  rate: number | null;
}

export function trialFigure(trials: readonly TrialValue[], reference?: { name: string; trials: readonly TrialValue[] }): TrialFigure | null {
  const rates = trials.map((t) => t.rate).filter((r): r is number => r !== null);
  if (!rates.length) return null;
  const s = summarize(rates);
  const figure: TrialFigure = { n: s.n, median: s.median, min: s.min, max: s.max, interval: s.interval, withinShareOfMedian: s.withinShareOfMedian };
  if (reference) {
    const refByRound = new Map(reference.trials.filter((t) => t.round !== null).map((t) => [t.round!, t.rate]));
    const ratio = pairedRatio(trials.filter((t) => t.round !== null).map((t) => [t.rate, refByRound.get(t.round!) ?? null] as const));
    if (ratio) figure.ratio = { ...ratio, reference: reference.name };
  }
  return figure;
}

/**
 * The fewest counted trials a median is ranked with. Two trials give an
 * interval, but one so wide (a t quantile of 12.7) or so unstable that a
 * rank from it says more about the luck of the draw than about the system.
 */
export const MIN_RANKED_TRIALS = 3;

/** Provisional: fewer than MIN_RANKED_TRIALS counted trials (one run: no interval at all); shown, never ranked above a ranked median. */
export const provisional = (f: TrialFigure | null | undefined): boolean => !f || f.interval === null || f.n < MIN_RANKED_TRIALS;
