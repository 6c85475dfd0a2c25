/**
 * The resilience charts' data from a result document: per cell with
 * a fault phase, its per-second series with the kill marked and the fault's
 * figures; per cell with a scale-up phase, the series with the added node
 * marked; recovery time vs state size; max throughput per node count; the
 * experiments the target could not do, with the reason. Invalid cells show no
 * numbers (the run charts give their reason); failed runs are never plotted.
 */
import type { Cell, FaultResult, ResultDocument, ScaleUpResult } from "@sfbench/core";
import type { FaultView, RecoveryView, ResilienceRunData, ScalabilityView, ScaleUpView } from "../experiment-types.ts";
import type { CellNote, Row, ScalabilityData } from "../types.ts";
import { cellRef } from "./cells.ts";
import { runSeries } from "./run.ts";
import { round } from "./series.ts";

const DASH = "—";
const secs = (s: number | null | undefined) => (s === null || s === undefined ? DASH : `${round(s, 2)} s`);
const ms = (v: number | null | undefined) => (v === null || v === undefined ? DASH : `${round(v, 1)} ms`);
const rate = (v: number) => `${round(v, 1)}/s`;

export function faultFigures(f: FaultResult): Array<{ label: string; value: string }> {
  const k = f.kill;
  const restart = !k.restarted
    ? "not restarted"
    : k.restartHealthyAfterS !== null
      ? `healthy ${secs(k.restartHealthyAfterS)} after the kill`
      : `not healthy within its timeout${k.restartError ? `: ${k.restartError}` : ""}`;
  return [
    { label: "killed", value: `node ${k.node} of ${k.nodes} with ${k.signal} at t = ${secs(k.atS)}` },
    { label: "restart", value: restart },
    { label: "offered rate", value: rate(f.offeredRate) },
    { label: "before the kill", value: `${rate(f.baselineRate)} successful (mean of ${f.baselineSeconds} s)` },
    {
      label: "error window",
      value: f.errorWindow
        ? `${secs(f.errorWindow.startS)} to ${secs(f.errorWindow.endS)} after the kill (${secs(f.errorWindow.durationS)})`
        : "no request failed",
    },
    {
      label: "recovered after",
      value:
        f.recoveredAfterS === null
          ? `not seen back within ${round(f.tolerance * 100, 1)}% of before${f.notRecovered ? `: ${f.notRecovered}` : ""}`
          : `${secs(f.recoveredAfterS)} (within ${round(f.tolerance * 100, 1)}% for ${f.sustainS} s)`,
    },
    { label: "lost (no answer)", value: String(f.lost) },
    { label: "failed (error status)", value: String(f.failed) },
    { label: "dropped iterations", value: String(f.dropped) },
    { label: "successful missing vs before", value: String(round(f.missingSuccessful, 1)) },
    { label: "lowest rate after the kill", value: rate(f.minRate) },
    { label: "p99 before / worst after", value: `${ms(f.baselineP99Ms)} / ${ms(f.peakP99Ms)}` },
    {
      label: "audit anomalies",
      value: f.anomalies
        ? `${Object.values(f.anomalies).reduce((a, b) => a + b, 0)}${
            Object.keys(f.anomalies).length
              ? ` (${Object.entries(f.anomalies)
                  .map(([kind, n]) => `${kind}: ${n}`)
                  .join(", ")})`
              : ""
          }`
        : "no audit",
    },
  ];
}

export function scaleUpFigures(s: ScaleUpResult): Array<{ label: string; value: string }> {
  return [
    { label: "nodes", value: `${s.nodesBefore} → ${s.nodesAfter}, node added at t = ${secs(s.addedAtS)}` },
    { label: "new node healthy after", value: s.nodeHealthyAfterS === null ? "not healthy within its timeout" : secs(s.nodeHealthyAfterS) },
    { label: "offered rate", value: rate(s.offeredRate) },
    {
      label: "throughput before / settled",
      value: `${rate(s.baselineRate)} / ${rate(s.settledRate)} (last ${s.settleSeconds} s), gain ${round(s.gain * 100, 1)}%`,
    },
    { label: "capacity shown after", value: s.capacityShownAfterS === null ? "no gain showed" : secs(s.capacityShownAfterS) },
    { label: "p99 before / worst around it", value: `${ms(s.baselineP99Ms)} / ${ms(s.peakP99Ms)}` },
    { label: "errors until the capacity showed", value: String(s.errors) },
  ];
}

function faultView(cell: Cell & { fault: FaultResult }): FaultView {
  const ref = cellRef(cell.workload, cell.distribution);
  return {
    kind: "fault",
    cell: ref.label,
    series: cell.series.length ? runSeries(cell) : null,
    marker: { atS: cell.fault.kill.atS, label: `kill -9 node ${cell.fault.kill.node}` },
    figures: faultFigures(cell.fault),
    anomalies: cell.fault.anomalies ? { ...cell.fault.anomalies } : null,
  };
}

function scaleUpView(cell: Cell & { scaleUp: ScaleUpResult }): ScaleUpView {
  const ref = cellRef(cell.workload, cell.distribution);
  return {
    kind: "scale-up",
    cell: ref.label,
    series: cell.series.length ? runSeries(cell) : null,
    marker: { atS: cell.scaleUp.addedAtS, label: `node ${cell.scaleUp.nodesAfter} added` },
    figures: scaleUpFigures(cell.scaleUp),
  };
}

export function recoveryView(points: NonNullable<NonNullable<ResultDocument["resilience"]>["recovery"]>["points"]): RecoveryView {
  const sorted = [...points].sort((a, b) => a.products + a.users - (b.products + b.users));
  return {
    rows: sorted.map((p) => ({ entities: p.products + p.users, health: p.healthAfterS, checkout: p.firstCheckoutAfterS })),
    points: sorted.map((p) => ({
      products: p.products,
      users: p.users,
      healthAfterS: p.healthAfterS,
      firstCheckoutAfterS: p.firstCheckoutAfterS,
      checked: p.checked,
      missing: p.missing,
      changed: p.changed,
      failure: p.failure ?? null,
    })),
  };
}

/** The run's scalability result in the scalability chart's shape (one line: the sustainable rate per node count). */
export function scalabilityView(s: NonNullable<NonNullable<ResultDocument["resilience"]>["scalability"]>, name: string): ScalabilityView {
  const points = [...s.points].sort((a, b) => a.nodes - b.nodes);
  const notes: CellNote[] = points
    .filter((p) => p.sustainableRate === null)
    .map((p) => ({ key: "s0", name, reason: `no sustainable rate at ${p.nodes} node${p.nodes === 1 ? "" : "s"}` }));
  const rows: Row[] = points.map((p) => ({ nodes: p.nodes, s0: p.sustainableRate }));
  const chart: ScalabilityData =
    points.length < 2
      ? { available: false, reason: `scalability needs two or more node counts; this run measured ${points.length}`, rows: [], keys: [], notes }
      : { available: true, reason: null, rows, keys: ["s0"], notes };
  return {
    environment: s.environment,
    routing: s.routing,
    chart,
    points: points.map((p) => ({
      nodes: p.nodes,
      maxThroughput: round(p.maxThroughput),
      sustainableRate: p.sustainableRate,
      speedup: round(p.speedup, 3),
      efficiency: round(p.efficiency, 3),
    })),
  };
}

/** Null when the document has no resilience results at all (version 1, or none of the experiments ran). */
export function resilienceRunData(doc: Pick<ResultDocument, "cells" | "resilience" | "status" | "target">): ResilienceRunData | null {
  if (doc.status === "failed") return null;
  const valid = doc.cells.filter((c) => c.valid);
  const faults = valid.filter((c): c is Cell & { fault: FaultResult } => Boolean(c.fault)).map(faultView);
  const scaleUps = valid.filter((c): c is Cell & { scaleUp: ScaleUpResult } => Boolean(c.scaleUp)).map(scaleUpView);
  const r = doc.resilience;
  const data: ResilienceRunData = {
    faults,
    scaleUps,
    recovery: r?.recovery ? recoveryView(r.recovery.points) : null,
    scalability: r?.scalability ? scalabilityView(r.scalability, doc.target.name) : null,
    unsupported: (r?.unsupported ?? []).map((u) => ({ experiment: u.experiment, reason: u.reason })),
  };
  const empty = !faults.length && !scaleUps.length && !data.recovery && !data.scalability && !data.unsupported.length;
  return empty ? null : data;
}
