/**
 * Ramp: the max-throughput search. Stepped arrival rates, coarse, then
 * bisection to the profile's resolution (knee.ts); hands the sustainable rate
 * (or the peak when no step was sustainable) to the stable phase.
 */
import type { KneeStop, MaxThroughput } from "@sfbench/core";
import { generatorSaturated, judgeStep, SUSTAINABLE } from "../../analysis/metrics.ts";
import { peakThroughput, stepResult } from "../../analysis/result-parts.ts";
import { findKnee } from "../knee.ts";
import { runLoadStep } from "../load-step.ts";
import { progress, type LoadOutcome, type Phase } from "../phase.ts";

declare module "../phase.ts" {
  interface CellState {
    ramp?: {
      steps: LoadOutcome[];
      /** the highest sustainable offered rate, null when no step was sustainable */
      sustainableRate: number | null;
      /** the maximum 10 s moving average of successful requests */
      peak: number;
      stoppedBecause: KneeStop;
    };
  }
}

export const ramp: Phase = {
  name: "ramp",
  needs: [],
  adds: ["ramp"],
  async run(ctx, cell) {
    const s = ctx.settings;
    const steps: LoadOutcome[] = [];
    const knee = await findKnee({ ...s.knee }, async (rate, kind) => {
      const detail = `${kind} step ${steps.length + 1} at ${rate}/s`;
      const p = await runLoadStep(ctx, cell, { rate, durationS: s.stepS, name: cell.file(`ramp-${steps.length}`), stage: `ramp (${detail})`, phase: "ramp", detail, sampleTarget: false });
      steps.push(p);
      return { rate, sustainable: judgeStep(p.step).sustainable, generatorCpuShare: p.generatorCpuShare };
    });
    const peak = peakThroughput(steps.map((p) => p.step));
    const maxThroughput: MaxThroughput = {
      ...peak,
      sustainableRate: knee.sustainableRate,
      steps: steps.map((p, i) => stepResult({ ...p.step, scenario: `step_${i}` }, judgeStep(p.step).reasons)),
      knee: {
        stoppedBecause: knee.stoppedBecause,
        firstUnsustainableRate: knee.firstUnsustainableRate,
        resolution: knee.resolution,
        targetResolution: s.knee.fineSteps > 0 ? (s.knee.resolution ?? 0.1) : null,
      },
    };
    progress(
      ctx,
      cell,
      "ramp",
      `knee: sustainable ${knee.sustainableRate ?? "none"}/s, first unsustainable ${knee.firstUnsustainableRate ?? "none"}/s, resolution ${knee.resolution === null ? "none" : `${(knee.resolution * 100).toFixed(1)}%`} (${knee.stoppedBecause})`,
    );
    // a saturated generator measures itself, not the target: checked on every step, since a
    // sustainable step whose generator fell behind offered less than its rate says
    const invalid: string[] = [];
    for (const p of steps) {
      const gen = generatorSaturated({
        droppedIterations: p.step.droppedIterations,
        iterations: p.step.iterations,
        generatorCpuShare: p.generatorCpuShare,
        targetAnsweredInTime: p.step.latency.count > 0 && p.step.latency.p99 < SUSTAINABLE.maxP99Ms,
      });
      if (gen.saturated) invalid.push(`ramp step at ${p.step.offeredRate}/s: ${gen.reasons.join(", ")}: the knee may be the generator's`);
    }
    return {
      state: { ramp: { steps, sustainableRate: knee.sustainableRate, peak: peak.maxMovingAvg10s, stoppedBecause: knee.stoppedBecause } },
      result: { maxThroughput },
      parameters: { stepS: s.stepS, kneeStoppedBecause: knee.stoppedBecause },
      series: steps.map((p) => p.agg),
      invalid,
    };
  },
};
