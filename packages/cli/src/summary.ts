/** The summary table printed at the end of `sfbench run`. */
import { costPer1000, rankable, type ResultDocument } from "@sfbench/core";

const f = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(digits));

export function summaryTable(doc: ResultDocument): string {
  // rates count checkouts (checkout, contention) or queries (analytics) per second, as docs/spec.md section 5 defines them
  const head = [
    "cell",
    "counts",
    "sustainable/s",
    "knee +-",
    "peak/s",
    "stable/s",
    "achieved/s",
    "p50 ms",
    "p99 ms",
    "errors",
    "core-s/1000",
    "anomalies",
    "ranked",
    "valid",
  ];
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
    f(costPer1000(c.cost), 2),
    c.anomalies ? String(c.anomalies.total) : "-",
    rankable(c).ok ? "yes" : "smoke",
    c.valid ? "yes" : `no: ${c.invalidReason}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i === head.length - 1 ? 5 : r[i]!.length))));
  const line = (r: string[]) => r.map((v, i) => (i === 0 || i === r.length - 1 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join("  ");
  const title = `${doc.target.name} ${doc.target.version}, profile ${doc.profile}, ${doc.status}${doc.error ? ` during ${doc.error.stage}: ${doc.error.message}` : ""}`;
  return (
    [
      title,
      ...(doc.cells.length ? [line(head), ...rows.map(line)] : []),
      ...costLines(doc),
      ...breakdownLines(doc),
      ...resilienceLines(doc),
      ...microLines(doc),
    ].join("\n") + "\n"
  );
}

/** Where each cell's target CPU went: core-s/1000 by process, largest first, where the run split it. */
export function costLines(doc: ResultDocument): string[] {
  return doc.cells.flatMap((c) => {
    const split = Object.entries(c.cost?.cpuByProcess ?? {}).sort((a, b) => b[1] - a[1]);
    if (!split.length) return [];
    return [`core-s/1000 by process, ${c.workload}/${c.distribution}: ${split.map(([label, s]) => `${label} ${s.toFixed(2)}`).join(", ")}`];
  });
}

/** The resilience experiments: per cell the fault or scale-up phase, per run recovery vs state size, and what is not supported. */
export function resilienceLines(doc: ResultDocument): string[] {
  const lines: string[] = [];
  const sec = (v: number | null) => (v === null ? "never" : `${v.toFixed(1)} s`);
  for (const c of doc.cells) {
    const f = c.fault;
    if (f) {
      lines.push(
        `fault ${c.workload}/${c.distribution}: kill -9 of node ${f.kill.node} of ${f.kill.nodes} at ${f.kill.atS.toFixed(1)} s${f.kill.restarted ? `, healthy again after ${sec(f.kill.restartHealthyAfterS)}` : ""}; errors for ${f.errorWindow ? `${f.errorWindow.durationS.toFixed(1)} s` : "0 s"}, ${f.recoveredAfterS === null ? `throughput not seen back within ${Math.round(f.tolerance * 100)}%${f.notRecovered ? ` (${f.notRecovered})` : ""}` : `throughput back within ${Math.round(f.tolerance * 100)}% after ${sec(f.recoveredAfterS)}`}; ${f.lost} lost, ${f.failed} failed, ${f.dropped} dropped; p99 ${f.baselineP99Ms?.toFixed(1) ?? "-"} -> ${f.peakP99Ms?.toFixed(1) ?? "-"} ms; audit: ${c.anomalies ? `${c.anomalies.total} anomalies` : "none"}`,
      );
    }
    const u = c.scaleUp;
    if (u) {
      lines.push(
        `scale-up ${c.workload}/${c.distribution}: ${u.nodesBefore} -> ${u.nodesAfter} nodes at ${u.addedAtS.toFixed(1)} s (healthy after ${sec(u.nodeHealthyAfterS)}); ${u.baselineRate.toFixed(0)}/s -> ${u.settledRate.toFixed(0)}/s (${(u.gain * 100).toFixed(0)}%), shown after ${sec(u.capacityShownAfterS)}; p99 ${u.baselineP99Ms?.toFixed(1) ?? "-"} -> ${u.peakP99Ms?.toFixed(1) ?? "-"} ms, ${u.errors} errors`,
      );
    }
  }
  const r = doc.resilience;
  for (const p of r?.recovery?.points ?? []) {
    lines.push(
      `recovery with ${p.products} products, ${p.users} users: health after ${sec(p.healthAfterS)}, first checkout after ${sec(p.firstCheckoutAfterS)}; ${p.missing} of ${p.checked} read back missing, ${p.changed} changed${p.failure ? ` (${p.failure})` : ""}`,
    );
  }
  const s = r?.scalability;
  if (s) {
    lines.push(
      `scalability (${s.environment}, ${s.routing === "balancer" ? "sfbench's balancer" : "the target's own routing"}): nodes, peak/s, sustainable/s, speedup, efficiency`,
    );
    for (const p of s.points)
      lines.push(
        `  ${String(p.nodes).padStart(3)}  ${p.maxThroughput.toFixed(1).padStart(8)}  ${(p.sustainableRate?.toFixed(0) ?? "none").padStart(6)}  ${p.speedup.toFixed(2).padStart(5)}x  ${(p.efficiency * 100).toFixed(0).padStart(4)}%`,
      );
    if (s.environment === "local")
      lines.push("  (local: the nodes share this machine's cores, so the speedup says how the system uses them, not how it scales across machines)");
  }
  for (const u of r?.unsupported ?? []) lines.push(`${u.experiment}: not supported (${u.reason})`);
  return lines;
}

/** The microbenchmarks (docs/spec.md 8): overhead per route and rate, the max rate of empty, messaging. */
export function microLines(doc: ResultDocument): string[] {
  const m = doc.micro;
  if (!m) return [];
  if (!m.supported) return [`micro: not supported (${m.reason})`];
  const ms = (v: number) => (v < 0.1 ? `${(v * 1000).toFixed(1)} us` : `${v.toFixed(2)} ms`);
  const lines = ["micro: invocation overhead (p50: end to end = in handler + overhead)"];
  for (const o of m.overhead) {
    const params = Object.entries(o.parameters)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ");
    lines.push(
      `  ${`${o.route}${params ? ` ${params}` : ""}`.padEnd(16)} at ${String(o.offeredRate).padStart(5)}/s: ${ms(o.latencyMs.p50)} = ${ms(o.handlerMs.p50)} + ${ms(o.overheadMs.p50)}  (p99 ${ms(o.latencyMs.p99)}, ${o.errors} errors)`,
    );
  }
  const k = m.emptyMaxRate;
  lines.push(
    `  empty: highest sustainable rate ${k.sustainableRate ?? "none"}/s${k.resolution !== null ? ` (knee +-${(k.resolution * 100).toFixed(0)}%)` : " (not bracketed)"}`,
  );
  const ns = (v: number | null) => (v === null ? "> 5 s" : v >= 1e6 ? `${(v / 1e6).toFixed(v >= 1e7 ? 0 : 1)} ms` : `${(v / 1e3).toFixed(0)} us`);
  for (const p of m.pingpong)
    lines.push(
      `  ping-pong ${p.pairs} pairs, ${p.bytes} B: ${p.messagesPerS.toFixed(0)} round trips/s, rtt p50 <= ${ns(p.rttNs.p50)}, p99 <= ${ns(p.rttNs.p99)}`,
    );
  for (const d of m.divide) lines.push(`  divide ${d.items} items, fan-out ${d.fanout}: ${(d.totalNs / 1e6).toFixed(1)} ms over ${d.entities} entities`);
  for (const b of m.big)
    lines.push(`  big ${b.entities} entities: ${b.messagesPerS.toFixed(0)} messages/s (${b.messages} messages in ${(b.totalNs / 1e6).toFixed(1)} ms)`);
  for (const n of m.notes) lines.push(`  note: ${n}`);
  return lines;
}

/**
 * One line per cell with a latency breakdown (mean ms per measured request
 * along the critical path), and one per traced phase: its p50 against the
 * untraced stable phase's at the same rate, what tracing cost this run.
 */
/** The target's CPU in the traced phase, and its cost per request against the stable phase's, when sampled. */
function tracedCpu(cost: NonNullable<ResultDocument["cells"][number]["traced"]>["cost"]): string {
  if (!cost) return "";
  const per1000 = cost.coreSecondsPer1000 === undefined ? "" : `, ${f(cost.coreSecondsPer1000, 1)} core-s per 1000`;
  const vs = cost.vsStable === undefined ? "" : ` (${f(cost.vsStable, 2)}x the stable phase's)`;
  return `; target CPU ${f(cost.targetCores, 2)} cores${per1000}${vs}`;
}

function breakdownLines(doc: ResultDocument): string[] {
  const lines: string[] = [];
  for (const c of doc.cells) {
    const t = c.traced;
    if (t)
      lines.push(
        `traced ${c.workload}/${c.distribution}: ${f(t.offeredRate, 1)}/s for ${t.durationS} s, p50 ${f(t.latency.p50, 2)} ms, p99 ${f(t.latency.p99, 1)} ms${t.overhead.p50 !== null ? ` (${f(t.overhead.p50, 2)}x and ${f(t.overhead.p99 ?? NaN, 2)}x the untraced stable phase's)` : ""}${tracedCpu(t.cost)}`,
      );
    const overall = c.breakdown?.overall as { gatewayMs?: number; functionMs?: Record<string, number>; networkMs?: number; count?: number } | undefined;
    if (!overall || typeof overall.gatewayMs !== "number") continue;
    const functions = Object.entries(overall.functionMs ?? {}).map(([entity, ms]) => `${entity} ${f(ms, 2)}`);
    lines.push(
      `breakdown ${c.workload}/${c.distribution} (mean ms of ${overall.count ?? "?"} traced requests): gateway ${f(overall.gatewayMs, 2)}, ${functions.length ? `${functions.join(", ")}, ` : ""}network + queueing ${f(overall.networkMs, 2)}`,
    );
  }
  return lines.length ? ["", ...lines] : [];
}
