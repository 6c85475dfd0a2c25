/**
 * Finding the knee of a target without wasting time: coarse steps that
 * multiply the offered rate until one is not sustainable (or divide it when
 * even the first is not), then bisection between the last sustainable rate
 * and the first unsustainable one until their relative gap, the knee's
 * resolution, is at most the plan's target.
 *
 * Bisection is geometric (the midpoint of good and bad in log space): each
 * fine step takes the square root of the bad/good ratio, so a x2 bracket
 * reaches 10% in 3 steps and a x3 bracket in 4.
 */
import { kneeResolution, type KneeStop } from "@sfbench/core";

export { kneeResolution };

export interface KneeStep {
  rate: number;
  sustainable: boolean;
}

export interface KneePlan {
  startRate: number;
  /** never offer more than this */
  maxRate: number;
  /** never offer less than this when stepping down from an unsustainable first step (default 1) */
  minRate?: number;
  /** multiply (or divide) the rate by this between coarse steps */
  factor: number;
  maxCoarseSteps: number;
  /** at most this many bisection steps; 0 = coarse steps only (a smoke test: no resolution is promised) */
  fineSteps: number;
  /** stop bisecting once (first unsustainable - last sustainable) / last sustainable <= this (default 0.1) */
  resolution?: number;
}

export interface KneeResult<V extends KneeStep> {
  steps: V[];
  /** the highest sustainable offered rate found, or null when no step was */
  sustainableRate: number | null;
  /** the lowest unsustainable offered rate above sustainableRate, or null when every step was sustainable */
  firstUnsustainableRate: number | null;
  /**
   * (firstUnsustainableRate - sustainableRate) / sustainableRate: how precisely the
   * knee is known; null when it is not bracketed (no sustainable or no unsustainable step)
   */
  resolution: number | null;
  /** why the search stopped */
  stoppedBecause: KneeStop;
}

/**
 * A rate the load can offer: tenths below 100/s (k6 offers rate x 10 per 10 s),
 * whole rates above, so that a low knee (7/s) can still be bracketed to 10%.
 */
export function roundRate(rate: number): number {
  return rate < 100 ? Math.round(rate * 10) / 10 : Math.round(rate);
}

/**
 * The rate a failed confirmation steps down to: the highest offerable rate at
 * most `resolution` below the candidate. Rounded up, not to the nearest: a
 * rate rounded down lies just over the resolution below (90.9/s steps to
 * 82.7/s, not 82.6/s, which is 10.05% below), and a knee bracketed to 10.05%
 * is not ranked.
 */
export function stepDownRate(candidate: number, resolution: number): number {
  const exact = candidate / (1 + resolution);
  // the small allowance keeps a quotient that is already offerable (99.9999...) from rounding a step up
  const up = (x: number, unit: number) => Math.ceil(x / unit - 1e-9) * unit;
  return roundRate(exact < 100 ? up(exact, 0.1) : up(exact, 1));
}

export async function findKnee<V extends KneeStep>(plan: KneePlan, runStep: (rate: number, phase: "coarse" | "fine") => Promise<V>): Promise<KneeResult<V>> {
  const target = plan.resolution ?? 0.1;
  const minRate = Math.max(1, plan.minRate ?? 1);
  const steps: V[] = [];
  // the bracket: the highest sustainable and the lowest unsustainable rate so far
  const k: { good: number | null; bad: number | null } = { good: null, bad: null };
  let stoppedBecause: KneeStop = "max-steps-reached";
  const run = async (rate: number, phase: "coarse" | "fine") => {
    const v = await runStep(rate, phase);
    steps.push(v);
    if (v.sustainable) k.good = Math.max(k.good ?? 0, rate);
    else k.bad = Math.min(k.bad ?? Infinity, rate);
    return v.sustainable;
  };

  // Coarse: up by `factor` until a step fails; down by `factor` while the first ones fail.
  let rate = Math.min(plan.maxRate, Math.max(minRate, plan.startRate));
  for (let i = 0; i < plan.maxCoarseSteps; i++) {
    const ok = await run(rate, "coarse");
    if (ok && k.bad !== null) break; // stepping down found a sustainable rate below the failed ones
    if (!ok && k.good !== null) break; // stepping up found the first unsustainable rate
    if (ok) {
      if (rate >= plan.maxRate) {
        stoppedBecause = "max-rate-reached";
        break;
      }
      rate = Math.min(plan.maxRate, Math.round(rate * plan.factor));
    } else {
      if (rate <= minRate) {
        stoppedBecause = "min-rate-unsustainable";
        break;
      }
      rate = Math.max(minRate, Math.round(rate / plan.factor));
    }
  }

  // Fine: bisect the bracket until the resolution is reached.
  if (k.good !== null && k.bad !== null) {
    stoppedBecause = "fine-steps-exhausted";
    for (let fine = 0; ; fine++) {
      const [good, bad]: [number, number] = [k.good, k.bad];
      if (kneeResolution(good, bad)! <= target) {
        stoppedBecause = "resolution-reached";
        break;
      }
      const mid = roundRate(Math.sqrt(good * bad));
      if (mid <= good || mid >= bad) {
        stoppedBecause = "rate-granularity";
        break;
      }
      if (fine >= plan.fineSteps) break;
      await run(mid, "fine");
    }
  }
  return { steps, sustainableRate: k.good, firstUnsustainableRate: k.bad, resolution: kneeResolution(k.good, k.bad), stoppedBecause };
}

export interface ConfirmPlan {
  /** the knee's target resolution: the bracket the confirmation leaves is at most this */
  resolution: number;
  /** at most this many steps down from a rate that failed its confirmation */
  stepsDown: number;
  /** never confirm below this */
  minRate: number;
}

export interface Confirmation {
  /** the highest rate that held its confirmation, or null when none did */
  confirmedRate: number | null;
  /** how many times a failed rate stepped down */
  stepsDown: number;
}

/**
 * The search's candidate confirmed with longer steps (MLPerf-style): `holds`
 * repeats a rate as the profile says and tells whether every repeat held. A
 * rate that fails steps down by growing drops, 1, 2, 4... resolutions, at most
 * `stepsDown` times: the search's short steps overestimated what a longer
 * step holds by 30-60% on the bundled systems, and drops of one resolution
 * each ran out before they reached it. Once a rate held below one that
 * failed, the two are bisected (geometrically, as the search does) until
 * their gap is the resolution, so the confirmed knee is as precise as the
 * search's.
 */
export async function confirmKnee(candidate: number, plan: ConfirmPlan, holds: (rate: number) => Promise<boolean>): Promise<Confirmation> {
  let good: number | null = null;
  let bad: number | null = null;
  let stepsDown = 0;
  for (let rate: number | null = candidate; rate !== null;) {
    if (await holds(rate)) {
      good = rate;
      break;
    }
    bad = rate;
    const lower = stepDownRate(rate, (1 + plan.resolution) ** (2 ** stepsDown) - 1);
    rate = stepsDown < plan.stepsDown && lower >= plan.minRate && lower < rate ? lower : null;
    if (rate !== null) stepsDown++;
  }
  if (good !== null && bad !== null) {
    for (;;) {
      if (kneeResolution(good, bad)! <= plan.resolution) break;
      const mid = roundRate(Math.sqrt(good * bad));
      if (mid <= good || mid >= bad) break;
      if (await holds(mid)) good = mid;
      else bad = mid;
    }
  }
  return { confirmedRate: good, stepsDown };
}
