/**
 * Scale-up: on a target running one node, load at a share (120%)
 * of the one-node sustainable rate, and at a planned second one node added.
 * From the phase's series: the time until the added capacity shows in
 * throughput, and the latency spike and errors around it.
 */
import { stableResult } from "../../analysis/result-parts.ts";
import { seriesOriginMs, onSeriesClock } from "../../resilience/k6-failures.ts";
import { analyzeScaleUp } from "../../resilience/scale-up.ts";
import { roundRate } from "../knee.ts";
import { runLoadStep } from "../load-step.ts";
import { progress, StageError, type Phase } from "../phase.ts";

export const scaleUp: Phase = {
  name: "scale-up",
  needs: ["ramp"],
  adds: ["stable"],
  async run(ctx, cell, state) {
    const t = ctx.target;
    if (!t)
      throw new StageError(
        "scale-up",
        "the scale-up experiment adds a node to the target: run it on a target sfbench starts (--target), not one given by --url",
      );
    const s = ctx.settings.scaleUp;
    const ramp = state.ramp!;
    const basis = ramp.sustainableRate ?? ramp.peak;
    const rate = Math.max(0.1, roundRate(basis * s.share));
    const nodesBefore = t.nodes();
    const offset = cell.seriesEnd();
    const detail = `load at ${rate}/s on ${nodesBefore} node${nodesBefore === 1 ? "" : "s"}, one more at ${s.addAtS} s`;
    progress(ctx, cell, "scale-up", detail);
    let calledAt: number | undefined;
    let healthyAfterS: number | null = null;
    let addError: string | undefined;
    const timer = new Promise<void>((resolve) => {
      const h = setTimeout(async () => {
        calledAt = Date.now();
        try {
          await t.addNode();
          healthyAfterS = (Date.now() - calledAt) / 1000;
          progress(ctx, cell, "scale-up", `node ${nodesBefore} joined after ${healthyAfterS.toFixed(1)} s`, { note: true });
        } catch (e) {
          addError = (e as Error).message;
        }
        resolve();
      }, s.addAtS * 1000);
      ctx.signal?.addEventListener("abort", () => {
        clearTimeout(h);
        resolve();
      });
    });
    const outcome = await runLoadStep(ctx, cell, {
      rate,
      durationS: s.durationS,
      name: cell.file("scale-up"),
      stage: `scale-up (${detail})`,
      phase: "scale-up",
      detail,
      sampleTarget: false,
    });
    await timer;
    if (addError) throw new StageError("scale-up", `adding a node failed: ${addError}`);
    if (calledAt === undefined) throw new StageError("scale-up", "the planned node was not added (the phase ended first)");
    const addedAtS = onSeriesClock(calledAt, seriesOriginMs(outcome.agg.startMs));
    const result = analyzeScaleUp({
      series: outcome.agg.perSecond,
      addedAtS,
      nodeHealthyAfterS: healthyAfterS,
      offeredRate: rate,
      nodesBefore,
      nodesAfter: t.nodes(),
    });
    progress(
      ctx,
      cell,
      "scale-up",
      `gain ${(result.gain * 100).toFixed(0)}%, shown after ${result.capacityShownAfterS === null ? "never" : `${result.capacityShownAfterS.toFixed(1)} s`}`,
    );
    return {
      state: { stable: { outcome, stats: stableResult(outcome.agg) } },
      result: { scaleUp: { ...result, addedAtS: offset + addedAtS } },
      parameters: { scaleUpRate: rate, scaleUpS: s.durationS, addAtS: s.addAtS },
      series: [outcome.agg],
    };
  },
};
