/**
 * Result documents built in code for the chart tests; every one passes
 * parseResult, so the charts are tested on what the portal really stores.
 */
import { parseResult, type ResultDocument, type ResultDocumentInput } from "@sfbench/core";
import { LatencyHistogram } from "@sfbench/engine";

type CellInput = ResultDocumentInput["cells"][number];

let counter = 0;

/** A histogram of the given latencies (ms) and its stats. */
export function histogramOf(values: readonly number[]) {
  const h = LatencyHistogram.create();
  for (const v of values) h.recordMs(v);
  return { encoded: h.encode(), stats: h.stats(), histogram: h };
}

export const ONE_TO_THOUSAND = Array.from({ length: 1000 }, (_, i) => i + 1);

function outcome(values: readonly number[]) {
  const { encoded, stats } = histogramOf(values);
  return { requests: values.length, successful: values.length, rejected: 0, errors: 0, latency: stats, histogram: encoded };
}

export function series(successful: readonly number[], offered?: number) {
  return successful.map((s, t) => ({
    t,
    ...(offered !== undefined ? { offered } : {}),
    successful: s,
    rejected: 0,
    errors: 0,
    dropped: 0,
    p50: s > 0 ? 5 : null,
    p99: s > 0 ? 40 : null,
  }));
}

export function cell(
  workload: CellInput["workload"],
  distribution: CellInput["distribution"],
  opts: {
    latencies?: readonly number[];
    perSecond?: readonly number[];
    valid?: boolean;
    invalidReason?: string;
    breakdown?: Record<string, unknown>;
    cost?: number;
  } = {},
): CellInput {
  const latencies = opts.latencies ?? ONE_TO_THOUSAND;
  const { encoded, stats } = histogramOf(latencies);
  const byTag =
    workload === "analytics"
      ? {
          byShape: { linear: outcome([2, 3, 4]), "fan-out": outcome([5, 6, 7]), exponential: outcome([20, 30, 40]) },
          byTopDepth: { "1/1": outcome([2]), "1/5": outcome([4]), "3/2": outcome([6]), "2/2": outcome([5]), "2/4": outcome([30]), "3/3": outcome([40]) },
        }
      : { byCartSize: { "2": outcome([3, 4]), "10": outcome([9, 11]), "3": outcome([5, 6]) } };
  return {
    workload,
    distribution,
    parameters: { products: 5000 },
    seed: 42,
    maxThroughput: {
      maxMovingAvg10s: 95,
      sustainableRate: 100,
      steps: [
        { scenario: "step_0", offeredRate: 50, durationS: 10, achievedRate: 50, completedShare: 1, errorRate: 0, droppedIterations: 0, latency: stats },
        {
          scenario: "step_1",
          offeredRate: 100,
          durationS: 10,
          achievedRate: 99,
          completedShare: 0.99,
          errorRate: 0,
          droppedIterations: 0,
          latency: stats,
          failedBecause: [],
        },
        {
          scenario: "step_2",
          offeredRate: 200,
          durationS: 10,
          achievedRate: 120,
          completedShare: 0.6,
          errorRate: 0.02,
          droppedIterations: 50,
          latency: stats,
          failedBecause: ["completed 60% of the offered rate (needs >= 95%)"],
        },
      ],
    },
    stable: { offeredRate: 80, durationS: 30, achievedRate: 80, errorRate: 0, latency: stats, ...byTag, histogram: encoded },
    series: series(opts.perSecond ?? Array.from({ length: 30 }, (_, i) => 50 + (i % 5)), 80),
    cost: {
      coreSecondsPer1000: opts.cost ?? 5,
      throughputPerCore: 200,
      peakRssBytes: 100_000_000,
      targetCpuSeconds: 12,
      generatorCpuSeconds: 3,
      generatorCpuShare: 0.2,
    },
    anomalies: { kinds: { "lost-update": 0 }, total: 0 },
    ...(opts.breakdown ? { breakdown: opts.breakdown } : {}),
    valid: opts.valid ?? true,
    ...(opts.invalidReason ? { invalidReason: opts.invalidReason } : {}),
  };
}

export function doc(opts: { name?: string; cells?: CellInput[]; failed?: { stage: string; message: string } } = {}): ResultDocument {
  counter++;
  const input: ResultDocumentInput = {
    schemaVersion: 1,
    runId: `00000000-0000-4000-8000-${String(counter).padStart(12, "0")}`,
    status: opts.failed ? "failed" : "completed",
    ...(opts.failed ? { error: opts.failed } : {}),
    target: { name: opts.name ?? "node-postgres", version: "1.0.0", system: opts.name ?? "node-postgres", manifestDigest: `sha256:${"a".repeat(64)}` },
    environment: { kind: "local", nodes: 1, cpuModel: "Test CPU", cores: 2, memoryBytes: 24 * 2 ** 30, os: "linux", node: "v22", k6Version: "v1.8.1" },
    startedAt: "2026-11-22T06:00:00Z",
    finishedAt: "2026-11-22T06:10:00Z",
    profile: "quick",
    cells: opts.cells ?? (opts.failed ? [] : [cell("checkout", "uniform"), cell("checkout", "zipf"), cell("analytics", "uniform")]),
    rawData: { dir: "/tmp/raw", files: ["k6.csv.gz"] },
  };
  const r = parseResult(input);
  if (!r.ok) throw new Error(`fixture does not validate:\n${r.errors.join("\n")}`);
  return r.result;
}

export const BREAKDOWN = {
  overall: { gatewayMs: 1.5, functionMs: { cart: 2, product: 3 }, networkMs: 4, count: 100 },
  byCartSize: {
    "2": { gatewayMs: 1, functionMs: { cart: 1, product: 2 }, networkMs: 3 },
    "8": { gatewayMs: 2, functionMs: { cart: 3, product: 6 }, networkMs: 5 },
  },
};
