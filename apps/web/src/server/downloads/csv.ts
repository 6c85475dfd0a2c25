/**
 * CSV downloads of a result document: one row per cell (the numbers of the
 * tables) and one row per cell and second (the series). RFC 4180 quoting; a
 * value that a spreadsheet would run as a formula is prefixed with '.
 */
import { costPer1000, type ResultDocument } from "@sfbench/core";

type Value = string | number | boolean | null | undefined;

function field(value: Value): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: string[], rows: Value[][]): string {
  return [header, ...rows].map((row) => row.map(field).join(",")).join("\r\n") + "\r\n";
}

export const CELL_COLUMNS = [
  "runId",
  "workload",
  "distribution",
  "valid",
  "invalidReason",
  "seed",
  "maxMovingAvg10s",
  "sustainableRate",
  "offeredRate",
  "achievedRate",
  "errorRate",
  "p50",
  "p95",
  "p99",
  "p999",
  "mean",
  "max",
  "throughputPerCore",
  "coreSecondsPer1000",
  "peakRssBytes",
  "generatorCpuShare",
  "anomaliesTotal",
];

export function cellsCsv(doc: ResultDocument): string {
  const rows = doc.cells.map((c) => {
    const numbers = c.valid; // an invalid cell gets no numbers, as on the pages
    const s = numbers ? c.stable : undefined;
    const m = numbers ? c.maxThroughput : undefined;
    const cost = numbers ? c.cost : undefined;
    return [
      doc.runId,
      c.workload,
      c.distribution,
      c.valid,
      c.invalidReason,
      c.seed,
      m?.maxMovingAvg10s,
      m?.sustainableRate,
      s?.offeredRate,
      s?.achievedRate,
      s?.errorRate,
      s?.latency.p50,
      s?.latency.p95,
      s?.latency.p99,
      s?.latency.p999,
      s?.latency.mean,
      s?.latency.max,
      cost?.throughputPerCore,
      costPer1000(cost),
      cost?.peakRssBytes,
      cost?.generatorCpuShare,
      numbers ? c.anomalies?.total : undefined,
    ];
  });
  return toCsv(CELL_COLUMNS, rows);
}

export const SERIES_COLUMNS = ["workload", "distribution", "t", "offered", "successful", "rejected", "errors", "dropped", "p50", "p99"];

export function seriesCsv(doc: ResultDocument): string {
  const rows = doc.cells
    .filter((c) => c.valid)
    .flatMap((c) => c.series.map((p) => [c.workload, c.distribution, p.t, p.offered, p.successful, p.rejected, p.errors, p.dropped, p.p50, p.p99]));
  return toCsv(SERIES_COLUMNS, rows);
}
