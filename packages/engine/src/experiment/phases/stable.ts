/**
 * Stable: load at 80% (the profile's share) of the sustainable rate, or of the
 * peak when no ramp step was sustainable. Its latency is the published
 * latency; the target's CPU and memory are sampled (cost). Its requests are
 * not sampled, so a traced target writes no spans here: the breakdown comes
 * from the traced phase after it.
 */
import type { Cell, StableLoad } from "@sfbench/core";
import { MAX_COST_PROCESSES, stableReasons } from "@sfbench/core";
import { generatorSaturated, SUSTAINABLE } from "../../analysis/metrics.ts";
import { setupOpsResult, stableResult } from "../../analysis/result-parts.ts";
import { roundRate } from "../knee.ts";
import { cpuOver, generatorShare, runLoadStep, targetAnsweredInTime, targetCpu } from "../load-step.ts";
import { waitQuiet } from "../quiet.ts";
import type { LoadOutcome, Phase, RunContext } from "../phase.ts";

declare module "../phase.ts" {
  interface CellState {
    stable?: { outcome: LoadOutcome; stats: StableLoad };
  }
}

/**
 * The target's cost during the stable phase, read while its requests ran
 * (cpuOver): the seconds in which k6 started its VUs and the target idled
 * would lower the cores it used. Over the whole phase when no window can be
 * read (a target counted by its container's cgroup); undefined when its
 * processes are unknown.
 */
export function stableCost(
  ctx: Pick<RunContext, "targetPids" | "split">,
  stable: Pick<LoadOutcome, "usage" | "agg" | "step" | "generatorCpuShare">,
): Cell["cost"] {
  const pids = ctx.targetPids();
  const usage = stable.usage;
  if (!usage || !pids.length) return undefined;
  const t = targetCpu(usage, stable.agg)!;
  const g = cpuOver(usage, "generator", stable.agg) ?? { cpuSeconds: usage.groups.generator!.cpuSeconds, seconds: usage.wallSeconds };
  const successful = stable.step.successful;
  const coresUsed = t.cpuSeconds / t.seconds;
  // with no successful request the cost of one is unknown, not zero: left out
  const coreSecondsPer1000 = successful ? (t.cpuSeconds / successful) * 1000 : undefined;
  const split = coreSecondsPer1000 === undefined ? undefined : splitByProcess(usage.groups.target!.byProcess, coreSecondsPer1000);
  return {
    ...(coreSecondsPer1000 === undefined ? {} : { coreSecondsPer1000 }),
    throughputPerCore: coresUsed > 0 ? stable.step.achievedRate / coresUsed : 0,
    peakRssBytes: usage.groups.target!.peakRssBytes,
    targetCpuSeconds: t.cpuSeconds,
    generatorCpuSeconds: g.cpuSeconds,
    generatorCpuShare: stable.generatorCpuShare ?? generatorShare(usage, stable.agg, ctx.split?.generatorCores ?? 1),
    ...(split ? { cpuByProcess: split } : {}),
  };
}

/**
 * The cost per 1000 split in the shares of the target's CPU each process
 * label had over the whole phase (the sampler keeps no series per process, so
 * the window the total is read in is not applied to the shares). Processes
 * below MINOR_SHARE of it (a launcher that only waits, a tool that ran once)
 * and those past the MAX_COST_PROCESSES - 1 largest are summed as "other",
 * which is left out when that sum is nothing.
 */
export function splitByProcess(byProcess: Record<string, number> | undefined, per1000: number): Record<string, number> | undefined {
  if (!byProcess) return undefined;
  const total = Object.values(byProcess).reduce((sum, s) => sum + s, 0);
  if (!(total > 0) || !(per1000 > 0)) return undefined;
  const ranked = Object.entries(byProcess).sort((a, b) => b[1] - a[1]);
  const shown = (label: string, s: number, rank: number) =>
    label !== "other" && s / total >= MINOR_SHARE && (ranked.length <= MAX_COST_PROCESSES || rank < MAX_COST_PROCESSES - 1);
  const split = new Map<string, number>();
  for (const [rank, [label, s]] of ranked.entries()) {
    const key = shown(label, s, rank) ? label : "other";
    split.set(key, (split.get(key) ?? 0) + s);
  }
  return Object.fromEntries([...split].filter(([, s]) => s > 0).map(([label, s]) => [label, Math.round((s / total) * per1000 * 1000) / 1000]));
}

/** A process below this share of the target's CPU is not shown on its own. */
export const MINOR_SHARE = 0.005;

export const stable: Phase = {
  name: "stable",
  needs: ["ramp"],
  adds: ["stable"],
  async run(ctx, cell, state) {
    const s = ctx.settings;
    const ramp = state.ramp!;
    const basis = ramp.sustainableRate ?? ramp.peak;
    const rate = s.fixedStableRate ?? Math.max(0.1, roundRate(basis * s.stableShare));
    // the stable figures are the target's at this rate, not those of a queue the ramp left behind
    const drainedS = (await waitQuiet(s.procedure.drain, ctx.targetPids, ctx.signal)).seconds;
    const outcome = await runLoadStep(ctx, cell, {
      rate,
      durationS: s.stableS,
      name: cell.file("stable"),
      stage: `stable load at ${rate}/s`,
      phase: "stable",
      detail: `stable load at ${rate}/s`,
      sampleTarget: true,
    });
    const stats = stableResult(outcome.agg);
    const cost = stableCost(ctx, outcome);

    // a stable phase that did not keep up with its offered rate measured a queue, and one that failed
    // or answered slower than a sustainable step may is no stable-load figure either (core's
    // stableReasons, which the import applies again); a saturated generator measures itself
    const invalid = stableReasons(stats);
    const gen = generatorSaturated({
      droppedIterations: outcome.step.droppedIterations,
      iterations: outcome.step.iterations,
      generatorCpuShare: outcome.generatorCpuShare,
      targetAnsweredInTime: targetAnsweredInTime(outcome.step, SUSTAINABLE.maxP99Ms),
    });
    invalid.push(...gen.reasons.map((r) => `stable phase: ${r}`));

    return {
      state: { stable: { outcome, stats } },
      result: { stable: stats, setupOps: setupOpsResult(outcome.agg), ...(cost ? { cost } : {}) },
      parameters: {
        stableS: s.stableS,
        stableRate: rate,
        stableBasis: s.fixedStableRate !== undefined ? "fixed" : ramp.sustainableRate === null ? "max-moving-average" : "sustainable-rate",
        stableDrainS: drainedS,
        drainMaxS: s.procedure.drain.maxS,
      },
      series: [outcome.agg],
      invalid,
    };
  },
};
