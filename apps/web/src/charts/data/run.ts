/**
 * buildRunData: what the run page draws for one result document, as plain
 * JSON. A failed run gets no cells (nothing of it is plotted) and says why;
 * an invalid cell carries its invalidReason and no numbers.
 */
import { costPer1000, KNEE_STOP_TEXT, parseCpuList, rankable, replacedByRepeat, type Cell, type MaxThroughput, type ResultDocument } from "@sfbench/core";
import { fmtResolution, rateUnit } from "../../shared/format.ts";
import type { RampData, Row, RunCell, RunData, RunSeriesData, SeriesRef } from "../types.ts";
import { analyticsData, cartSizeData } from "./bytag.ts";
import { breakdownData } from "./breakdown.ts";
import { cellKey, cellRef, defaultCell } from "./cells.ts";
import { failedRunReason, stableDistribution } from "./compare.ts";
import { latencyData } from "./latency.ts";
import { systemColor } from "./palette.ts";
import { denseSuccessful, downsample, MOVING_AVERAGE_WINDOW_S, movingAverage, round } from "./series.ts";

export function buildRunData(doc: ResultDocument): RunData {
  const system: SeriesRef = { key: "s0", slug: doc.target.system, name: doc.target.name, color: systemColor(0) };
  const env = doc.environment;
  const base = {
    runId: doc.runId,
    system,
    title: `${doc.target.name} ${doc.target.version}`,
    status: doc.status,
    environment: [
      env.kind,
      `${env.nodes} node${env.nodes === 1 ? "" : "s"}`,
      env.machineType,
      `${env.cores} cores`,
      env.cpuModel,
      `${(env.memoryBytes / 2 ** 30).toFixed(1)} GiB`,
    ]
      .filter(Boolean)
      .join(" · "),
    profile: doc.profile,
  };
  if (doc.status === "failed") {
    return {
      ...base,
      failed: { stage: doc.error?.stage ?? "unknown", message: doc.error?.message ?? "", reason: failedRunReason(doc) },
      cells: [],
      defaultCell: null,
    };
  }
  const seen = new Set<string>();
  const cells: RunCell[] = [];
  const given = doc.environment.cpuSplit ? parseCpuList(doc.environment.cpuSplit.target).length : undefined;
  for (const cell of doc.cells) {
    const key = cellKey(cell);
    if (seen.has(key)) continue;
    seen.add(key);
    cells.push(runCell(cell, system, given));
  }
  return { ...base, failed: null, cells, defaultCell: defaultCell(cells.map((c) => c.ref)) };
}

function runCell(cell: Cell, system: SeriesRef, givenCores: number | undefined): RunCell {
  const ref = cellRef(cell.workload, cell.distribution);
  const empty: RunCell = {
    ref,
    valid: cell.valid,
    invalidReason: null,
    ramp: null,
    series: null,
    latency: null,
    cartSize: null,
    analytics: null,
    breakdown: null,
    breakdownPhase: null,
    cost: null,
    anomalies: null,
  };
  if (!cell.valid) return { ...empty, invalidReason: cell.invalidReason ?? "invalid (no reason given)" };
  const dist = stableDistribution(cell);
  const stable = cell.stable;
  return {
    ...empty,
    ramp: cell.maxThroughput ? rampData(cell.maxThroughput, cell, givenCores) : null,
    series: cell.series.length ? runSeries(cell) : null,
    latency: dist.ok ? latencyData([{ key: system.key, distribution: dist.distribution }]) : null,
    cartSize: cell.workload !== "analytics" && stable?.byCartSize ? cartSizeData([{ key: system.key, tags: stable.byCartSize }]) : null,
    analytics: cell.workload === "analytics" && stable ? analyticsData([{ key: system.key, byShape: stable.byShape, byTopDepth: stable.byTopDepth }]) : null,
    breakdown: breakdownData([{ system, raw: cell.breakdown }]),
    breakdownPhase: breakdownPhaseText(cell),
    cost: cell.cost
      ? {
          coreSecondsPer1000: nullableRound(costPer1000(cell.cost)),
          throughputPerCore: round(cell.cost.throughputPerCore),
          peakRssBytes: cell.cost.peakRssBytes,
          generatorCpuShare: round(cell.cost.generatorCpuShare),
          byProcess: Object.entries(cell.cost.cpuByProcess ?? {})
            .map(([label, coreSeconds]) => ({ label, coreSeconds: round(coreSeconds) }))
            .sort((a, b) => b.coreSeconds - a.coreSeconds || a.label.localeCompare(b.label)),
        }
      : null,
    anomalies: cell.anomalies ? { total: cell.anomalies.total, kinds: { ...cell.anomalies.kinds }, examples: [...(cell.anomalies.examples ?? [])] } : null,
  };
}

const nullableRound = (x: number | undefined) => (x === undefined ? null : round(x));

const ratioText = (r: number | null) => (r === null ? "-" : `${r.toFixed(2)}x`);

/**
 * Where a cell's spans come from: the traced phase after the stable one (the
 * knee and the published latency measured without spans), with what tracing
 * cost this run; or, for a breakdown stored before the traced phase existed,
 * the stable phase itself, traced.
 */
export function breakdownPhaseText(cell: Pick<Cell, "traced" | "breakdown">): string | null {
  const t = cell.traced;
  if (t)
    return `from a traced phase of ${t.durationS} s at the stable rate (${round(t.offeredRate)}/s): p50 ${ratioText(t.overhead.p50)}, p99 ${ratioText(t.overhead.p99)} the untraced stable phase's${
      t.cost?.vsStable !== undefined
        ? `; CPU per request ${ratioText(t.cost.vsStable)} the stable phase's (the target used ${round(t.cost.targetCores, 2)} cores)`
        : ""
    }`;
  return cell.breakdown ? "from the stable phase, traced (a run from before the knee and the stable phase ran without spans)" : null;
}

/**
 * The knee procedure in words, from the cell's parameters and the knee's
 * confirmation: what a reader needs to judge the number (the procedure is data).
 */
export function procedureText(mt: MaxThroughput, parameters: Cell["parameters"] | undefined): string | null {
  const p = parameters ?? {};
  const n = (k: string) => (typeof p[k] === "number" ? (p[k] as number) : undefined);
  if (n("warmupS") === undefined) return null;
  const warmups = n("warmupSteps") ?? 1;
  const tolerance = n("warmupSettleTolerance");
  const warmup =
    tolerance === undefined
      ? `warm-up ${n("warmupS")} s (not judged)`
      : `warm-up ${warmups} x ${n("warmupS")} s (not judged), ` +
        (p.warmupSettled === false
          ? `the target's CPU per request still falling by more than ${round(tolerance * 100)}% or its cores full at the last`
          : `until the target's CPU per request fell by at most ${round(tolerance * 100)}% from one to the next`);
  const unsettled = n("quietUnsettled") ?? 0;
  const quiet =
    `quiet time up to ${n("quietMaxS")} s between steps` +
    (unsettled > 0 ? ` (${unsettled} step${unsettled === 1 ? "" : "s"} began before the target settled, on the previous step's backlog)` : "");
  const parts = [warmup, `steps of ${n("stepS") ?? "?"} s`, quiet];
  if (p.repeatNarrow === true) parts.push("a search step that failed narrowly run again at once");
  const c = mt.knee?.confirmation;
  if (c)
    parts.push(
      `confirmation: ${c.count} repeats of ${c.stepS} s at ${c.candidateRate}/s` +
        (c.confirmedRate === null
          ? ", none held"
          : c.stepsDown
            ? `, held at ${c.confirmedRate}/s after ${c.stepsDown} step${c.stepsDown === 1 ? "" : "s"} down`
            : ", held"),
    );
  else parts.push("not confirmed (a smoke test)");
  const drain = n("stableDrainS");
  if (drain !== undefined) parts.push(`the stable phase after the target settled (waited ${round(drain, 1)} of up to ${n("drainMaxS") ?? "?"} s)`);
  return `Procedure: ${parts.join("; ")}.`;
}

/** Steps of the ramp in order; a step is sustainable when the analysis gave no reason against it. */
export function rampData(mt: MaxThroughput, cell?: Pick<Cell, "workload" | "valid" | "anomalies" | "parameters">, givenCores?: number): RampData {
  // without a cell only the knee speaks (no audit was handed in, so none is held against it)
  const rank = rankable({ valid: cell?.valid ?? true, maxThroughput: mt, anomalies: cell ? cell.anomalies : { kinds: {}, total: 0 } });
  // only a mark the step's own numbers bear out, as the board's recheck counts it
  const replaced = replacedByRepeat(mt.steps);
  return {
    steps: mt.steps.map((s, i) => ({
      step: i + 1,
      offered: round(s.offeredRate),
      achieved: round(s.achievedRate),
      completedShare: round(s.completedShare, 4),
      errorRate: round(s.errorRate, 4),
      p99: s.latency.p99,
      durationS: s.durationS,
      sustainable: (s.failedBecause ?? []).length === 0,
      failedBecause: [...(s.failedBecause ?? [])],
      repeated: replaced[i] === true,
      targetCores: s.targetCores ?? null,
    })),
    sustainableRate: mt.sustainableRate,
    maxMovingAvg10s: round(mt.maxMovingAvg10s),
    movingAvgPartial: mt.movingAvgPartial ?? false,
    unit: rateUnit(cell?.workload ?? "checkout"),
    kneeCores: mt.kneeCores === undefined ? null : { used: mt.kneeCores, given: givenCores ?? null },
    knee: mt.knee
      ? {
          stoppedBecause: mt.knee.stoppedBecause,
          reason: KNEE_STOP_TEXT[mt.knee.stoppedBecause],
          firstUnsustainableRate: mt.knee.firstUnsustainableRate,
          resolution: mt.knee.resolution === null ? null : round(mt.knee.resolution, 4),
          targetResolution: mt.knee.targetResolution,
          ranked: rank.ok,
          procedure: procedureText(mt, cell?.parameters),
          rankNote: rank.ok
            ? `ranked: the knee is known to ${fmtResolution(rank.resolution)}`
            : `${rank.because === "knee" ? "smoke test, " : ""}not ranked: ${rank.reason}`,
        }
      : null,
  };
}

/**
 * Every second from the first to the last of the series (gaps as zero
 * requests, no latency); a long series is averaged into buckets (p99 takes
 * the bucket's maximum, so that spikes stay visible).
 */
export function runSeries(cell: Pick<Cell, "series">): RunSeriesData {
  const { first, values } = denseSuccessful(cell.series);
  const ma = movingAverage(values);
  const byT = new Map(cell.series.map((p) => [p.t, p]));
  const dense: Row[] = values.map((successful, i) => {
    const p = byT.get(first + i);
    return {
      t: first + i,
      offered: p?.offered ?? null,
      successful,
      ma: ma.values[i]!,
      rejected: p?.rejected ?? 0,
      errors: p?.errors ?? 0,
      dropped: p?.dropped ?? 0,
      p50: p?.p50 ?? null,
      p99: p?.p99 ?? null,
    };
  });
  const { rows, bucketS } = downsample(dense, { ma: "last", offered: "last", p99: "max" });
  return { rows, windowS: MOVING_AVERAGE_WINDOW_S, bucketS, partial: ma.partial };
}
