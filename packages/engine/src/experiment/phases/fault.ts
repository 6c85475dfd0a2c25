/**
 * Fault: load at a share (50%) of the sustainable rate, and at a
 * planned second of it `kill -9` of one node (a single-process target: the
 * whole target, started again at once with its data). From the phase's
 * series and its failed requests: the error window, the time until
 * throughput is back within 10% of before, requests lost and failed. The
 * audit phase after it says whether state survived. A node of a multi-node
 * target that was left down is started again after the phase, so the next
 * cell measures the whole target.
 */
import type { Workload } from "@sfbench/core";
import { stableResult } from "../../analysis/result-parts.ts";
import { analyzeFault, type FaultAnalysis } from "../../resilience/fault.ts";
import { injectFault, planFault } from "../../resilience/inject.ts";
import { failuresFromK6Csv, onSeriesClock, seriesOriginMs } from "../../resilience/k6-failures.ts";
import { roundRate } from "../knee.ts";
import { MEASURED, runLoadStep } from "../load-step.ts";
import { progress, StageError, type LoadOutcome, type Phase } from "../phase.ts";

/** The fault analysis of the phase's k6 run, on the phase's own series clock (faultAtS: the kill). */
async function analysisOf(outcome: LoadOutcome, killedAt: number, workload: Workload, rate: number): Promise<FaultAnalysis & { faultAtS: number }> {
  const originMs = seriesOriginMs(outcome.agg.startMs);
  const faultAtS = onSeriesClock(killedAt, originMs);
  const failures = await failuresFromK6Csv(outcome.csv, { op: MEASURED[workload], originMs });
  const baselineSeconds = Math.max(1, Math.min(30, Math.floor(faultAtS) - 1));
  return { ...analyzeFault({ series: outcome.agg.perSecond, faultAtS, offeredRate: rate, failures, baselineSeconds }), faultAtS };
}

export const fault: Phase = {
  name: "fault",
  needs: ["ramp"],
  adds: ["stable"],
  async run(ctx, cell, state) {
    const t = ctx.target;
    if (!t)
      throw new StageError(
        "fault",
        "the fault experiment kills and restarts the target's processes: run it on a target sfbench starts (--target), not one given by --url",
      );
    const f = ctx.settings.fault;
    const ramp = state.ramp!;
    const basis = ramp.sustainableRate ?? ramp.peak;
    const rate = Math.max(0.1, roundRate(basis * f.share));
    const plan = planFault(t.manifest, t.nodes());
    const offset = cell.seriesEnd();
    const detail = `load at ${rate}/s, kill -9 of node ${plan.node} of ${plan.nodes} at ${f.killAtS} s`;
    progress(ctx, cell, "fault", detail);
    const abort = new AbortController();
    let killedAt: number | undefined;
    const injected = injectFault({
      plan,
      atMs: Date.now() + f.killAtS * 1000,
      originMs: 0,
      kill: async (index, signal) => {
        const k = await t.kill(index, signal);
        killedAt = k.at;
        progress(ctx, cell, "fault", `killed node ${index} (${signal})${plan.restart ? ", starting it again with its data" : ""}`, { note: true });
        return k;
      },
      restart: (index) => t.restart(index),
      signalAbort: abort.signal,
    });
    injected.catch(() => {});
    let outcome;
    try {
      outcome = await runLoadStep(ctx, cell, {
        rate,
        durationS: f.durationS,
        name: cell.file("fault"),
        stage: `fault (${detail})`,
        phase: "fault",
        detail,
        sampleTarget: false,
      });
    } finally {
      abort.abort();
    }
    const kill = await injected.catch((e: Error) => {
      throw new StageError("fault", `the planned kill did not happen: ${e.message}`);
    });
    if (killedAt === undefined) throw new StageError("fault", "the planned kill did not happen");
    const { faultAtS, ...analysis } = await analysisOf(outcome, killedAt, cell.workload, rate);
    // the next cell measures the whole target again
    if (!plan.restart) await t.restart(plan.node);
    progress(
      ctx,
      cell,
      "fault",
      `errors for ${analysis.errorWindow ? `${analysis.errorWindow.durationS.toFixed(1)} s` : "0 s"}, ${analysis.recoveredAfterS === null ? `not back within 10%: ${analysis.notRecovered}` : `back within 10% after ${analysis.recoveredAfterS.toFixed(1)} s`}, ${analysis.lost} lost, ${analysis.failed} failed`,
    );
    return {
      state: { stable: { outcome, stats: stableResult(outcome.agg) } },
      // the kill on the cell's series clock (the ramp's steps come first)
      result: { fault: { ...analysis, kill: { ...kill, atS: offset + faultAtS } } },
      parameters: { faultRate: rate, faultS: f.durationS, killAtS: f.killAtS },
      series: [outcome.agg],
    };
  },
};
