/**
 * Traced: the stable phase's rate again, for the profile's tracedS, with the
 * requests' traceparent sampled (SPEC 3), when the target is traced and the
 * run's span topic is up. The knee search and the stable phase send unsampled
 * requests, so the rate that ranks a system and the latency it publishes are
 * measured without the instrument; the spans written here give the
 * breakdown, and this phase's latency against the stable phase's is what
 * tracing costs that system, in every run that traces it.
 */
import type { TracedPhase } from "@sfbench/core";
import { stableResult } from "../../analysis/result-parts.ts";
import { openTraceWindow, phaseBreakdown } from "../breakdown.ts";
import { runLoadStep } from "../load-step.ts";
import type { LoadOutcome, Phase } from "../phase.ts";

declare module "../phase.ts" {
  interface CellState {
    traced?: { outcome: LoadOutcome };
  }
}

/** this phase's value / the stable phase's, when both have one */
export function ratio(traced: number, untraced: number, samples: number): number | null {
  return samples > 0 && untraced > 0 ? Number((traced / untraced).toFixed(3)) : null;
}

export const traced: Phase = {
  name: "traced",
  needs: ["stable"],
  adds: ["traced"],
  async run(ctx, cell, state) {
    if (!ctx.trace) return {};
    const s = ctx.settings;
    const stable = state.stable!.stats;
    const rate = stable.offeredRate;
    // the spans written in this window, shipped once it is over
    const traceWindow = await openTraceWindow(ctx, cell);
    if (!traceWindow) return {};
    let outcome: LoadOutcome;
    try {
      outcome = await runLoadStep(ctx, cell, {
        rate,
        durationS: s.tracedS,
        name: cell.file("traced"),
        stage: `traced load at ${rate}/s`,
        phase: "traced",
        detail: `traced load at ${rate}/s (the breakdown)`,
        sampleTarget: false,
        traced: true,
      });
    } catch (e) {
      await traceWindow.abort();
      throw e;
    }
    const stats = stableResult(outcome.agg);
    const breakdown = await phaseBreakdown(ctx, cell, traceWindow, outcome, stats);
    const count = Math.min(stats.latency.count, stable.latency.count);
    const phase: TracedPhase = {
      offeredRate: stats.offeredRate,
      durationS: stats.durationS,
      achievedRate: stats.achievedRate,
      errorRate: stats.errorRate,
      latency: stats.latency,
      overhead: { p50: ratio(stats.latency.p50, stable.latency.p50, count), p99: ratio(stats.latency.p99, stable.latency.p99, count) },
    };
    return {
      state: { traced: { outcome } },
      result: { traced: phase, ...(breakdown ? { breakdown } : {}) },
      parameters: { tracedS: s.tracedS },
      series: [outcome.agg],
    };
  },
};
