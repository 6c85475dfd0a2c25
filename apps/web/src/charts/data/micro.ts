/**
 * The microbenchmark charts' data (docs/spec.md 8) from a result document's
 * `micro` part: the overhead stacked bars (in-handler vs overhead, p50), the
 * ping-pong round-trip eCDF from the target's histogram buckets, and the
 * divide and Big figures; for the compare page the same side by side.
 * A document without `micro` (schema version 1) has no micro data.
 */
import type { MicroPingPong, MicroResult, ResultDocument } from "@sfbench/core";
import type { BigSummary, EcdfLine, MicroCompareData, MicroRunData, OverheadBar, PingPongSummary } from "../experiment-types.ts";
import type { CellNote, EcdfPoint, Row, SeriesRef } from "../types.ts";
import { systemColor } from "./palette.ts";
import { round } from "./series.ts";

type Histogram = MicroPingPong["histogram"];

const NS_PER_MS = 1e6;

export function fmtBytes(bytes: number): string {
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

export function pingpongKey(c: Pick<MicroPingPong, "pairs" | "bytes">): string {
  return `${c.pairs}x${c.bytes}`;
}

export function pingpongLabel(c: Pick<MicroPingPong, "pairs" | "bytes">): string {
  return `${c.pairs} pair${c.pairs === 1 ? "" : "s"}, ${fmtBytes(c.bytes)}`;
}

/**
 * The empirical CDF of round-trip latency from histogram buckets [upper bound ns | null, count]:
 * one point (ms, share at or below it) per bound from the bucket below the first non-empty one
 * (share 0) to the first bound that holds every round trip; round trips above the last bound
 * (null) are counted in `beyond`, so the line then ends below 1.
 */
export function histogramEcdf(histogram: Histogram): { points: EcdfPoint[]; beyond: number; total: number } {
  const bounded = histogram.filter((b): b is [number, number] => b[0] !== null).sort((a, b) => a[0] - b[0]);
  const beyond = histogram.filter((b) => b[0] === null).reduce((s, b) => s + b[1], 0);
  const total = bounded.reduce((s, b) => s + b[1], 0) + beyond;
  if (total === 0) return { points: [], beyond: 0, total: 0 };
  const first = bounded.findIndex((b) => b[1] > 0);
  if (first === -1) return { points: [], beyond, total };
  const within = total - beyond;
  const points: EcdfPoint[] = [{ ms: (first > 0 ? bounded[first - 1]![0] : bounded[first]![0] / 2) / NS_PER_MS, p: 0 }];
  let cumulative = 0;
  for (let i = first; i < bounded.length; i++) {
    cumulative += bounded[i]![1];
    points.push({ ms: bounded[i]![0] / NS_PER_MS, p: round(cumulative / total, 6) });
    if (cumulative === within) break;
  }
  return { points, beyond, total };
}

function parametersText(parameters: Record<string, number>): string {
  return Object.entries(parameters)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
}

export function overheadBars(micro: Extract<MicroResult, { supported: true }>): OverheadBar[] {
  return micro.overhead.map((o) => {
    const params = parametersText(o.parameters);
    return {
      label: `${o.route}${params ? ` (${params})` : ""} @ ${round(o.offeredRate, 1)}/s`,
      route: o.route,
      parameters: params,
      offeredRate: o.offeredRate,
      achievedRate: round(o.achievedRate),
      requests: o.requests,
      errors: o.errors,
      handlerMs: round(o.handlerMs.p50, 6),
      overheadMs: round(o.overheadMs.p50, 6),
      latencyP50Ms: round(o.latencyMs.p50, 6),
      latencyP99Ms: round(o.latencyMs.p99, 6),
    };
  });
}

function pingpongSummary(c: MicroPingPong): PingPongSummary {
  return {
    key: pingpongKey(c),
    label: pingpongLabel(c),
    pairs: c.pairs,
    bytes: c.bytes,
    messages: c.messages,
    messagesPerS: round(c.messagesPerS),
    totalMs: round(c.totalNs / NS_PER_MS),
    p50Ms: c.rttNs.p50 === null ? null : round(c.rttNs.p50 / NS_PER_MS, 6),
    p99Ms: c.rttNs.p99 === null ? null : round(c.rttNs.p99 / NS_PER_MS, 6),
    requestMs: round(c.requestMs),
  };
}

/** The run page's micro section; null when the document has no `micro` part (version 1, or not measured). */
export function microRunData(doc: Pick<ResultDocument, "micro">): MicroRunData | null {
  const micro = doc.micro;
  if (!micro) return null;
  if (!micro.supported) return { supported: false, reason: micro.reason };
  return {
    supported: true,
    overhead: overheadBars(micro),
    emptyMaxRate: { ...micro.emptyMaxRate },
    pingpong: micro.pingpong.map(pingpongSummary),
    ecdf: micro.pingpong.map((c, i) => ({ key: `c${i}`, name: pingpongLabel(c), color: systemColor(i), ...histogramEcdf(c.histogram) })),
    divide: micro.divide.map((d) => ({
      items: d.items,
      fanout: d.fanout,
      leaf: d.leaf,
      entities: d.entities,
      totalMs: round(d.totalNs / NS_PER_MS),
      requestMs: round(d.requestMs),
    })),
    big: micro.big.map(bigSummary),
    notes: [...micro.notes],
  };
}

function bigSummary(b: Extract<MicroResult, { supported: true }>["big"][number]): BigSummary {
  return {
    entities: b.entities,
    messages: b.messages,
    messagesPerS: round(b.messagesPerS),
    totalMs: round(b.totalNs / NS_PER_MS),
    requestMs: round(b.requestMs),
  };
}

/**
 * The compare page's micro charts: `empty` overhead per system at each rate, one ping-pong eCDF per
 * configuration (a line per system), Big messages/s against entities. A failed run is never plotted
 * (the caller leaves it out); a system without micro numbers gets a note with the reason.
 */
export function buildMicroCompareData(
  input: ReadonlyArray<{ slug: string; name: string; doc: Pick<ResultDocument, "micro" | "status" | "runId"> | null }>,
): MicroCompareData {
  const systems: SeriesRef[] = [];
  const notes: CellNote[] = [];
  const measured: Array<{ ref: SeriesRef; micro: Extract<MicroResult, { supported: true }> }> = [];
  input.forEach((sys, i) => {
    const ref: SeriesRef = { key: `s${i}`, slug: sys.slug, name: sys.name, color: systemColor(i) };
    if (!sys.doc) {
      notes.push({ key: ref.key, name: ref.name, reason: "no completed run with microbenchmarks in this environment" });
      return;
    }
    if (sys.doc.status !== "completed") {
      notes.push({ key: ref.key, name: ref.name, reason: `run ${sys.doc.runId} did not complete; only completed runs are plotted` });
      return;
    }
    const micro = sys.doc.micro;
    if (!micro) notes.push({ key: ref.key, name: ref.name, reason: "no microbenchmarks in this run" });
    else if (!micro.supported) notes.push({ key: ref.key, name: ref.name, reason: `micro: not supported (${micro.reason})` });
    else {
      systems.push(ref);
      measured.push({ ref, micro });
    }
  });

  const overheadRows = new Map<number, Row>();
  const overheadKeys = new Set<string>();
  for (const { ref, micro } of measured) {
    for (const o of micro.overhead.filter((x) => x.route === "empty")) {
      const row = overheadRows.get(o.offeredRate) ?? { rate: o.offeredRate };
      row[`${ref.key}_handler`] = round(o.handlerMs.p50, 6);
      row[`${ref.key}_overhead`] = round(o.overheadMs.p50, 6);
      overheadRows.set(o.offeredRate, row);
      overheadKeys.add(ref.key);
    }
    if (!micro.overhead.some((x) => x.route === "empty")) notes.push({ key: ref.key, name: ref.name, reason: "no overhead measurement of empty" });
  }

  const configs = new Map<string, { label: string; pairs: number; bytes: number; lines: EcdfLine[] }>();
  for (const { ref, micro } of measured)
    for (const c of micro.pingpong) {
      const key = pingpongKey(c);
      const entry = configs.get(key) ?? { label: pingpongLabel(c), pairs: c.pairs, bytes: c.bytes, lines: [] };
      entry.lines.push({ key: ref.key, name: ref.name, color: ref.color, ...histogramEcdf(c.histogram) });
      configs.set(key, entry);
    }

  const bigRows = new Map<number, Row>();
  const bigKeys = new Set<string>();
  for (const { ref, micro } of measured)
    for (const b of micro.big) {
      const row = bigRows.get(b.entities) ?? { entities: b.entities };
      row[ref.key] = round(b.messagesPerS);
      bigRows.set(b.entities, row);
      bigKeys.add(ref.key);
    }
  const fill = (rows: Row[], keys: string[], suffixes: string[]) =>
    rows.map((row) => {
      for (const k of keys) for (const s of suffixes) if (!(`${k}${s}` in row)) row[`${k}${s}`] = null;
      return row;
    });
  const oKeys = [...overheadKeys];
  const bKeys = [...bigKeys];
  return {
    systems,
    notes,
    overhead: {
      rows: fill(
        [...overheadRows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r),
        oKeys,
        ["_handler", "_overhead"],
      ),
      keys: oKeys,
    },
    pingpong: [...configs.entries()]
      .sort((a, b) => a[1].pairs - b[1].pairs || a[1].bytes - b[1].bytes)
      .map(([key, c]) => ({ key, label: c.label, lines: c.lines })),
    big: {
      rows: fill(
        [...bigRows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r),
        bKeys,
        [""],
      ),
      keys: bKeys,
    },
  };
}
