/**
 * From an aggregate to the parts of a result document (packages/core
 * result.ts): histograms encoded, steps judged, tag breakdowns named.
 */
import type { MaxThroughput, OutcomeSummary, StableLoad } from "@sfbench/core";
import type { K6Aggregate } from "./aggregate.ts";
import { maxMovingAverage, sustainableRate, type SustainableCriteria } from "./metrics.ts";
import type { OutcomeAggregate } from "./outcome.ts";

export function outcomeSummary(o: OutcomeAggregate): OutcomeSummary {
  const { requests, successful, rejected, errors, latency, histogram } = o;
  return { requests, successful, rejected, errors, latency, histogram: histogram.encode() };
}

const summaries = (byValue: Record<string, OutcomeAggregate> | undefined) =>
  byValue && Object.keys(byValue).length > 0 ? Object.fromEntries(Object.entries(byValue).map(([k, v]) => [k, outcomeSummary(v)])) : undefined;

/** The max-throughput ramp: steps step_<i> with a known offered rate, judged against the criteria. */
export function maxThroughputResult(a: K6Aggregate, criteria: Partial<SustainableCriteria> = {}): MaxThroughput {
  const steps = a.steps.filter((s) => s.offeredRate !== null);
  const sustainable = sustainableRate(steps, criteria);
  const avg = maxMovingAverage(a.perSecond, 10);
  return {
    maxMovingAvg10s: avg.value,
    ...(avg.partial ? { movingAvgPartial: true } : {}),
    sustainableRate: sustainable.rate,
    steps: steps.map((s, i) => {
      const reasons = sustainable.verdicts[i]!.reasons;
      return {
        scenario: s.scenario,
        offeredRate: s.offeredRate!,
        durationS: s.durationS,
        achievedRate: s.achievedRate,
        completedShare: s.completedShare!,
        errorRate: s.errorRate,
        droppedIterations: s.droppedIterations,
        latency: s.latency,
        histogram: s.histogram.encode(),
        ...(reasons.length ? { failedBecause: reasons } : {}),
      };
    }),
  };
}

/** The stable-load run: one step (its only scenario) at a fixed offered rate. */
export function stableResult(a: K6Aggregate): StableLoad {
  const [step, ...more] = a.steps;
  if (!step || more.length > 0 || step.offeredRate === null)
    throw new Error(`a stable-load run has exactly one step with a known rate; found ${a.steps.map((s) => `${s.scenario} (${s.offeredRate ?? "rate unknown"})`).join(", ") || "none"}`);
  const byCartSize = summaries(a.byTag.cart_size);
  const byShape = summaries(a.byTag.shape);
  const byTopDepth = summaries(a.byTag["top/depth"]);
  return {
    offeredRate: step.offeredRate,
    durationS: step.durationS,
    achievedRate: step.achievedRate,
    errorRate: step.errorRate,
    droppedIterations: step.droppedIterations,
    latency: step.latency,
    ...(byCartSize ? { byCartSize } : {}),
    ...(byShape ? { byShape } : {}),
    ...(byTopDepth ? { byTopDepth } : {}),
    histogram: step.histogram.encode(),
  };
}

/** The setup requests (every op other than the measured one). */
export function setupOpsResult(a: K6Aggregate): Record<string, OutcomeSummary> {
  return Object.fromEntries(Object.entries(a.setupOps).map(([op, o]) => [op, outcomeSummary(o)]));
}
