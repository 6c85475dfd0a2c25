/**
 * One cell of a run (workload x distribution): the experiment's phases in
 * order (experiments.ts), each adding its part to the cell's result, then
 * the cell document: parameters, series and validity gathered from them.
 */
import { cellName, REJECTIONS, type Cell, type CellChoice, type Experiment, type SeriesPoint } from "@sfbench/core";
import type { K6Aggregate } from "../analysis/aggregate.ts";
import { checkPhases, EXPERIMENT_PHASES } from "./experiments.ts";
import type { CellPlan, CellState, Phase, PhaseResult, RunContext } from "./phase.ts";

export { aliveCheck, StageError, type RunContext } from "./phase.ts";

/** Per-second series of phases run one after another, as one series. */
function concatSeries(aggs: K6Aggregate[]): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  for (const a of aggs) {
    const offset = out.length ? out[out.length - 1]!.t + 1 : 0;
    for (const p of a.perSecond) out.push({ ...p, t: p.t + offset });
  }
  return out;
}

export async function runCell(
  ctx: RunContext,
  choice: CellChoice,
  experiment: Experiment = "throughput",
  phases: readonly Phase[] = EXPERIMENT_PHASES[experiment].cell,
): Promise<Cell> {
  checkPhases(phases);
  const { workload, distribution } = choice;
  const state: CellState = {};
  const results: PhaseResult[] = [];
  const cell: CellPlan = {
    workload,
    distribution,
    name: cellName(choice),
    file: (part) => `${workload}-${distribution}-${part}`,
    seriesEnd: () => {
      const series = concatSeries(results.flatMap((r) => r.series ?? []));
      return series.length ? series[series.length - 1]!.t + 1 : 0;
    },
  };
  for (const phase of phases) {
    const r = await phase.run(ctx, cell, state);
    const extra = Object.keys(r.state ?? {}).filter((k) => !(phase.adds as readonly string[]).includes(k));
    if (extra.length) throw new Error(`phase ${phase.name} handed on ${extra.join(", ")} without declaring it in adds (a bug)`);
    Object.assign(state, r.state);
    results.push(r);
  }
  const s = ctx.settings;
  const invalid = results.flatMap((r) => r.invalid ?? []);
  return {
    workload,
    distribution,
    parameters: {
      products: s.products,
      ...(workload === "analytics" ? { populate: s.populate } : {}),
      ...(workload === "analytics" && ctx.populateCheckoutsPerSecond ? { populateCheckoutsPerSecond: ctx.populateCheckoutsPerSecond } : {}),
      ...Object.assign({}, ...results.map((r) => r.parameters ?? {})),
      zipfS: 1.25,
      productPrefix: ctx.productPrefix,
      // what a 409 counted as: a failure, or a planned rejection the audit checks
      rejections: REJECTIONS[workload],
    },
    seed: ctx.seed,
    ...Object.assign({}, ...results.map((r) => r.result ?? {})),
    series: concatSeries(results.flatMap((r) => r.series ?? [])),
    valid: invalid.length === 0,
    ...(invalid.length ? { invalidReason: invalid.join("; ") } : {}),
  } as Cell;
}
