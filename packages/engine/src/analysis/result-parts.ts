/**
 * From an aggregate to the parts of a result document (packages/core
 * result.ts): histograms encoded, steps judged, tag breakdowns named.
 */
import type { MaxThroughput, OutcomeSummary, StableLoad, StepResult } from "@sfbench/core";
import { PEAK_WINDOW_S, type K6Aggregate, type StepAggregate } from "./aggregate.ts";
import { sustainableRate, type SustainableCriteria } from "./metrics.ts";
import type { OutcomeAggregate } from "./outcome.ts";

export function outcomeSummary(o: OutcomeAggregate): OutcomeSummary {
  const { requests, successful, rejected, errors, latency, histogram } = o;
  return { requests, successful, rejected, errors, latency, histogram: histogram.encode() };
}

const summaries = (byValue: Record<string, OutcomeAggregate> | undefined) =>
  byValue && Object.keys(byValue).length > 0 ? Object.fromEntries(Object.entries(byValue).map(([k, v]) => [k, outcomeSummary(v)])) : undefined;

/** One ramp step of a result document: rates counted inside the step's measured window, and why it is not sustainable. */
export function stepResult(s: StepAggregate, reasons: readonly string[]): StepResult {
  return {
    scenario: s.scenario,
    offeredRate: s.offeredRate!,
    durationS: s.durationS,
    achievedRate: s.window.achievedRate,
    completedShare: s.window.completedShare ?? 0,
    errorRate: s.errorRate,
    droppedIterations: s.droppedIterations,
    latency: s.latency,
    histogram: s.histogram.encode(),
    ...(reasons.length ? { failedBecause: [...reasons] } : {}),
    measuredWindowS: s.window.durationS,
    peakRate: s.window.peakRate,
    ...(s.window.scheduledShare != null ? { scheduledShare: s.window.scheduledShare } : {}),
  };
}

/**
 * The peak throughput (SPEC 5 (a)): the highest 10 s moving average of
 * successful requests per second inside any step's measured window; partial
 * when every window was shorter than 10 s (then it is the best window's mean).
 */
export function peakThroughput(steps: readonly StepAggregate[]): { maxMovingAvg10s: number; movingAvgPartial?: true } {
  const value = Math.max(0, ...steps.map((s) => s.window.peakRate));
  const partial = steps.every((s) => s.window.peakWindowS < PEAK_WINDOW_S);
  return { maxMovingAvg10s: value, ...(partial ? { movingAvgPartial: true as const } : {}) };
}

/** The max-throughput ramp: steps step_<i> with a known offered rate, judged against the criteria. */
export function maxThroughputResult(a: K6Aggregate, criteria: Partial<SustainableCriteria> = {}): MaxThroughput {
  const steps = a.steps.filter((s) => s.offeredRate !== null);
  const sustainable = sustainableRate(steps, criteria);
  return {
    ...peakThroughput(steps),
    sustainableRate: sustainable.rate,
    steps: steps.map((s, i) => stepResult(s, sustainable.verdicts[i]!.reasons)),
  };
}

/** The stable-load run: one step (its only scenario) at a fixed offered rate. */
export function stableResult(a: K6Aggregate): StableLoad {
  const [step, ...more] = a.steps;
  if (!step || more.length > 0 || step.offeredRate === null)
    throw new Error(
      `a stable-load run has exactly one step with a known rate; found ${a.steps.map((s) => `${s.scenario} (${s.offeredRate ?? "rate unknown"})`).join(", ") || "none"}`,
    );
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
    ...(step.window.completedShare !== null ? { completedShare: step.window.completedShare } : {}),
  };
}

/** The setup requests (every op other than the measured one). */
export function setupOpsResult(a: K6Aggregate): Record<string, OutcomeSummary> {
  return Object.fromEntries(Object.entries(a.setupOps).map(([op, o]) => [op, outcomeSummary(o)]));
}
