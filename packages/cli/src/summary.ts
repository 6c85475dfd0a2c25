/** The summary table printed at the end of `sfbench run`. */
import { rankable, type ResultDocument } from "@sfbench/core";

const f = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(digits));

export function summaryTable(doc: ResultDocument): string {
  // rates count checkouts (checkout, contention) or queries (analytics) per second, as docs/spec.md section 5 defines them
  const head = ["cell", "counts", "sustainable/s", "knee +-", "peak/s", "stable/s", "achieved/s", "p50 ms", "p99 ms", "errors", "core-s/1000", "anomalies", "ranked", "valid"];
  const rows = doc.cells.map((c) => [
    `${c.workload}/${c.distribution}`,
    c.workload === "analytics" ? "queries" : "checkouts",
    f(c.maxThroughput?.sustainableRate, 0),
    c.maxThroughput?.knee?.resolution != null ? `${(c.maxThroughput.knee.resolution * 100).toFixed(0)}%` : "-",
    f(c.maxThroughput?.maxMovingAvg10s),
    f(c.stable?.offeredRate, 0),
    f(c.stable?.achievedRate),
    f(c.stable?.latency.p50, 2),
    f(c.stable?.latency.p99, 2),
    c.stable ? `${(c.stable.errorRate * 100).toFixed(2)}%` : "-",
    f(c.cost?.coreSecondsPer1000, 2),
    c.anomalies ? String(c.anomalies.total) : "-",
    rankable(c).ok ? "yes" : "smoke",
    c.valid ? "yes" : `no: ${c.invalidReason}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i === head.length - 1 ? 5 : r[i]!.length))));
  const line = (r: string[]) => r.map((v, i) => (i === 0 || i === r.length - 1 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join("  ");
  const title = `${doc.target.name} ${doc.target.version}, profile ${doc.profile}, ${doc.status}${doc.error ? ` during ${doc.error.stage}: ${doc.error.message}` : ""}`;
  return [title, line(head), ...rows.map(line), ...breakdownLines(doc)].join("\n") + "\n";
}

/** One line per cell with a latency breakdown (mean ms per measured request along the critical path). */
function breakdownLines(doc: ResultDocument): string[] {
  const lines: string[] = [];
  for (const c of doc.cells) {
    const overall = c.breakdown?.overall as { gatewayMs?: number; functionMs?: Record<string, number>; networkMs?: number; count?: number } | undefined;
    if (!overall || typeof overall.gatewayMs !== "number") continue;
    const functions = Object.entries(overall.functionMs ?? {}).map(([entity, ms]) => `${entity} ${f(ms, 2)}`);
    lines.push(
      `breakdown ${c.workload}/${c.distribution} (mean ms of ${overall.count ?? "?"} traced requests): gateway ${f(overall.gatewayMs, 2)}, ${functions.length ? `${functions.join(", ")}, ` : ""}network + queueing ${f(overall.networkMs, 2)}`,
    );
  }
  return lines.length ? ["", ...lines] : [];
}
