/**
 * buildCompareData: everything the compare page draws for 2-4 systems, as
 * plain JSON. Runs on the server (it decodes histograms).
 *
 * Rules (SPEC 6): a failed run is never plotted (its system is excluded with
 * the run's error as the reason); an invalid cell gives no numbers, only its
 * invalidReason.
 */
import { costPer1000, type Cell, type ResultDocument } from "@sfbench/core";
import type {
  CellNote,
  CellRef,
  CompareCell,
  CompareData,
  CostData,
  ExcludedSystem,
  LatencyDistribution,
  LocData,
  RatingsData,
  Row,
  ScalabilityData,
  SeriesRef,
} from "../types.ts";
import { analyticsData, cartSizeData } from "./bytag.ts";
import { breakdownData } from "./breakdown.ts";
import { cellKey, defaultCell, presentCells } from "./cells.ts";
import { latencyData, latencyDistribution } from "./latency.ts";
import { systemColor } from "./palette.ts";
import { round, throughputRows } from "./series.ts";

export interface CompareInput {
  systems: Array<{
    slug: string;
    name: string;
    doc: ResultDocument;
    loc?: Record<string, { app: number; gateway: number }> | null;
    ratings?: { programmingModel: number; understandability: number; count: number } | null;
    scalability?: Array<{ nodes: number; sustainableRate: number | null }>;
  }>;
}

type InputSystem = CompareInput["systems"][number];

export function failedRunReason(doc: ResultDocument): string {
  const where = doc.error ? ` at stage "${doc.error.stage}": ${doc.error.message}` : "";
  return `run ${doc.runId} failed${where}; failed runs are never plotted`;
}

/** The cell of a document for a key; a document with two cells of the same key uses the first. */
function findCell(doc: ResultDocument, key: string): Cell | undefined {
  return doc.cells.find((c) => cellKey(c) === key);
}

export function buildCompareData(input: CompareInput): CompareData {
  const systems: SeriesRef[] = [];
  const excluded: ExcludedSystem[] = [];
  const plotted: Array<{ ref: SeriesRef; sys: InputSystem }> = [];
  input.systems.forEach((sys, i) => {
    const ref: SeriesRef = { key: `s${i}`, slug: sys.slug, name: sys.name, color: systemColor(i) };
    if (sys.doc.status === "failed") {
      excluded.push({ slug: sys.slug, name: sys.name, reason: failedRunReason(sys.doc) });
      return;
    }
    systems.push(ref);
    plotted.push({ ref, sys });
  });

  const refs = presentCells(plotted.map((p) => p.sys.doc.cells));
  const cells = refs.map((ref) => compareCell(ref, plotted));
  return {
    systems,
    excluded,
    cells,
    defaultCell: defaultCell(refs),
    cost: costData(refs, plotted),
    scalability: scalabilityData(plotted),
    loc: locData(plotted),
    ratings: ratingsData(plotted),
  };
}

function compareCell(ref: CellRef, plotted: ReadonlyArray<{ ref: SeriesRef; sys: InputSystem }>): CompareCell {
  const notes: CellNote[] = [];
  const valid: Array<{ ref: SeriesRef; cell: Cell }> = [];
  for (const p of plotted) {
    const cell = findCell(p.sys.doc, ref.key);
    if (!cell) notes.push({ key: p.ref.key, name: p.ref.name, reason: `this run has no ${ref.label} cell` });
    else if (!cell.valid) notes.push({ key: p.ref.key, name: p.ref.name, reason: `invalid: ${cell.invalidReason ?? "no reason given"}` });
    else valid.push({ ref: p.ref, cell });
  }

  const throughput = throughputRows(valid.map((v) => ({ key: v.ref.key, series: v.cell.series, maxMovingAvg10s: v.cell.maxThroughput?.maxMovingAvg10s })));
  for (const v of valid) if (v.cell.series.length === 0) notes.push({ key: v.ref.key, name: v.ref.name, reason: "no per-second series" });

  const distributions: Array<{ key: string; distribution: LatencyDistribution }> = [];
  for (const v of valid) {
    const d = stableDistribution(v.cell);
    if (d.ok) distributions.push({ key: v.ref.key, distribution: d.distribution });
    else notes.push({ key: v.ref.key, name: v.ref.name, reason: d.reason });
  }

  const stable = valid.map((v) => ({ key: v.ref.key, stable: v.cell.stable }));
  return {
    ref,
    plotted: valid.map((v) => v.ref.key),
    notes,
    throughput,
    latency: latencyData(distributions),
    cartSize: ref.workload === "analytics" ? null : cartSizeData(stable.map((s) => ({ key: s.key, tags: s.stable?.byCartSize }))),
    analytics:
      ref.workload === "analytics" ? analyticsData(stable.map((s) => ({ key: s.key, byShape: s.stable?.byShape, byTopDepth: s.stable?.byTopDepth }))) : null,
    breakdown: breakdownData(valid.map((v) => ({ system: v.ref, raw: v.cell.breakdown }))),
  };
}

export function stableDistribution(cell: Cell): { ok: true; distribution: LatencyDistribution } | { ok: false; reason: string } {
  if (!cell.stable) return { ok: false, reason: "no stable-load phase, so no latency distribution" };
  try {
    const d = latencyDistribution(cell.stable.histogram);
    return d ? { ok: true, distribution: d } : { ok: false, reason: "the stable-load histogram is empty" };
  } catch (e) {
    return { ok: false, reason: `the stable-load histogram is unreadable (${(e as Error).message})` };
  }
}

function costData(refs: readonly CellRef[], plotted: ReadonlyArray<{ ref: SeriesRef; sys: InputSystem }>): CostData {
  const notes: CellNote[] = [];
  const rows: Row[] = [];
  for (const ref of refs) {
    const row: Row = { cell: ref.label };
    let any = false;
    for (const p of plotted) {
      const cell = findCell(p.sys.doc, ref.key);
      row[`${p.ref.key}_cpu`] = null;
      row[`${p.ref.key}_tpc`] = null;
      if (!cell) continue;
      if (!cell.valid) {
        notes.push({ key: p.ref.key, name: p.ref.name, reason: `${ref.label}: invalid: ${cell.invalidReason ?? "no reason given"}` });
        continue;
      }
      if (!cell.cost) {
        notes.push({ key: p.ref.key, name: p.ref.name, reason: `${ref.label}: no cost measured` });
        continue;
      }
      const per1000 = costPer1000(cell.cost);
      if (per1000 === undefined) {
        notes.push({ key: p.ref.key, name: p.ref.name, reason: `${ref.label}: the stable phase completed no request, so its cost per request is unknown` });
        continue;
      }
      row[`${p.ref.key}_cpu`] = round(per1000);
      row[`${p.ref.key}_tpc`] = round(cell.cost.throughputPerCore);
      any = true;
    }
    if (any) rows.push(row);
  }
  return { rows, notes, available: rows.length > 0 };
}

function scalabilityData(input: ReadonlyArray<{ ref: SeriesRef; sys: InputSystem }>): ScalabilityData {
  // the run-level scalability experiment (schema 2) adds its node counts to the runs at each node count
  const plotted = input.map((p) => ({
    ref: p.ref,
    sys: {
      ...p.sys,
      scalability: [
        ...(p.sys.scalability ?? []),
        ...(p.sys.doc.resilience?.scalability?.points ?? []).map((x) => ({ nodes: x.nodes, sustainableRate: x.sustainableRate })),
      ],
    },
  }));
  const nodes = new Set<number>();
  for (const p of plotted) for (const s of p.sys.scalability ?? []) nodes.add(s.nodes);
  const ordered = [...nodes].sort((a, b) => a - b);
  if (ordered.length < 2) {
    const found = ordered.length === 0 ? "none" : `only ${ordered[0]} node${ordered[0] === 1 ? "" : "s"}`;
    return {
      available: false,
      reason: `scalability needs results at two or more node counts (kubernetes runs); found ${found}`,
      rows: [],
      keys: [],
      notes: [],
    };
  }
  const notes: CellNote[] = [];
  for (const p of plotted)
    for (const s of p.sys.scalability ?? [])
      if (s.sustainableRate === null)
        notes.push({ key: p.ref.key, name: p.ref.name, reason: `no sustainable rate at ${s.nodes} node${s.nodes === 1 ? "" : "s"}` });
  const keys = plotted.filter((p) => (p.sys.scalability ?? []).length > 0).map((p) => p.ref.key);
  const rows: Row[] = ordered.map((n) => {
    const row: Row = { nodes: n };
    for (const p of plotted) {
      const hits = (p.sys.scalability ?? []).filter((s) => s.nodes === n && s.sustainableRate !== null);
      row[p.ref.key] = hits.length ? Math.max(...hits.map((h) => h.sustainableRate!)) : null;
    }
    return row;
  });
  return { available: true, reason: null, rows, keys, notes };
}

function locData(plotted: ReadonlyArray<{ ref: SeriesRef; sys: InputSystem }>): LocData {
  const rows: LocData["rows"] = [];
  const notes: CellNote[] = [];
  for (const p of plotted) {
    const entries = Object.entries(p.sys.loc ?? {});
    if (entries.length === 0) {
      notes.push({ key: p.ref.key, name: p.ref.name, reason: "no lines-of-code count for this version" });
      continue;
    }
    rows.push({
      key: p.ref.key,
      name: p.ref.name,
      app: entries.reduce((a, [, v]) => a + v.app, 0),
      gateway: entries.reduce((a, [, v]) => a + v.gateway, 0),
      languages: entries.map(([lang]) => lang).sort(),
    });
  }
  return { available: rows.length > 0, rows, notes };
}

function ratingsData(plotted: ReadonlyArray<{ ref: SeriesRef; sys: InputSystem }>): RatingsData {
  const counts: Record<string, number> = {};
  const notes: CellNote[] = [];
  const pm: Row = { metric: "Programming model" };
  const un: Row = { metric: "Understandability" };
  for (const p of plotted) {
    const r = p.sys.ratings;
    if (!r || r.count === 0) {
      notes.push({ key: p.ref.key, name: p.ref.name, reason: "no ratings yet" });
      pm[p.ref.key] = null;
      un[p.ref.key] = null;
      continue;
    }
    counts[p.ref.key] = r.count;
    pm[p.ref.key] = round(r.programmingModel, 2);
    un[p.ref.key] = round(r.understandability, 2);
  }
  const available = Object.keys(counts).length > 0;
  return { available, rows: available ? [pm, un] : [], counts, notes };
}
