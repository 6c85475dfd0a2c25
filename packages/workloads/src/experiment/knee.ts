/**
 * Finding the knee of a target without wasting time: coarse steps that
 * double the offered rate until one is not sustainable, then finer steps
 * between the last sustainable rate and the first that was not.
 */
export interface KneeStep {
  rate: number;
  sustainable: boolean;
}

export interface KneePlan {
  startRate: number;
  /** never offer more than this */
  maxRate: number;
  /** multiply the rate by this between coarse steps */
  factor: number;
  maxCoarseSteps: number;
  /** steps between the last good and the first bad coarse rate */
  fineSteps: number;
}

export interface KneeResult<V extends KneeStep> {
  steps: V[];
  /** the highest sustainable offered rate found, or null when even the first step was not */
  sustainableRate: number | null;
  /** why the search stopped */
  stoppedBecause: "unsustainable-step-found" | "max-rate-reached" | "max-steps-reached" | "first-step-unsustainable";
}

export async function findKnee<V extends KneeStep>(plan: KneePlan, runStep: (rate: number, phase: "coarse" | "fine") => Promise<V>): Promise<KneeResult<V>> {
  const steps: V[] = [];
  let good: number | null = null;
  let bad: number | null = null;
  let rate = plan.startRate;
  let stoppedBecause: KneeResult<V>["stoppedBecause"] = "max-steps-reached";
  for (let i = 0; i < plan.maxCoarseSteps; i++) {
    const v = await runStep(rate, "coarse");
    steps.push(v);
    if (!v.sustainable) {
      bad = rate;
      stoppedBecause = good === null ? "first-step-unsustainable" : "unsustainable-step-found";
      break;
    }
    good = rate;
    if (rate >= plan.maxRate) {
      stoppedBecause = "max-rate-reached";
      break;
    }
    rate = Math.min(plan.maxRate, Math.round(rate * plan.factor));
  }
  const lo = good ?? 0;
  if (bad !== null && plan.fineSteps > 0) {
    const width = (bad - lo) / (plan.fineSteps + 1);
    for (let k = 1; k <= plan.fineSteps; k++) {
      const r = Math.round(lo + width * k);
      if (r <= lo || r >= bad || steps.some((s) => s.rate === r)) continue;
      const v = await runStep(r, "fine");
      steps.push(v);
      if (!v.sustainable) break;
      good = r;
    }
  }
  return { steps, sustainableRate: good, stoppedBecause };
}
