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
import { runLoadStep, targetCpu } from "../load-step.ts";
import type { LoadOutcome, Phase, RunContext } from "../phase.ts";
import { stableCost } from "./stable.ts";

declare module "../phase.ts" {
  interface CellState {
    traced?: { outcome: LoadOutcome };
  }
}

/** this phase's value / the stable phase's, when both have one */
export function ratio(traced: number, untraced: number, samples: number): number | null {
  return samples > 0 && untraced > 0 ? Number((traced / untraced).toFixed(3)) : null;
}

/**
 * The target's CPU in the traced phase, read as the stable phase's is (targetCpu: while the requests ran), and its
 * cost per request against the stable phase's: what writing its spans costs this system in CPU, beside what it
 * costs in latency. Undefined when the target's processes are unknown.
 */
export function tracedCost(
  ctx: Pick<RunContext, "targetPids">,
  traced: Pick<LoadOutcome, "usage" | "agg" | "step">,
  stablePer1000: number | undefined,
): TracedPhase["cost"] {
  if (!traced.usage || !ctx.targetPids().length) return undefined;
  const t = targetCpu(traced.usage, traced.agg);
  if (!t || !(t.seconds > 0)) return undefined;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const per1000 = traced.step.successful > 0 ? (t.cpuSeconds / traced.step.successful) * 1000 : undefined;
  return {
    targetCores: round(t.cpuSeconds / t.seconds),
    ...(per1000 === undefined ? {} : { coreSecondsPer1000: round(per1000) }),
    ...(per1000 !== undefined && stablePer1000 ? { vsStable: round(per1000 / stablePer1000) } : {}),
  };
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
        // sampled as the stable phase is, so the two phases' latency and CPU compare on equal terms
        sampleTarget: true,
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
    const cost = tracedCost(ctx, outcome, stableCost(ctx, state.stable!.outcome)?.coreSecondsPer1000);
    if (cost) phase.cost = cost;
    return {
      state: { traced: { outcome } },
      result: { traced: phase, ...(breakdown ? { breakdown } : {}) },
      parameters: { tracedS: s.tracedS },
      series: [outcome.agg],
    };
  },
};
