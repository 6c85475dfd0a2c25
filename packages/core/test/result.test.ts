import { describe, expect, it } from "vitest";
import { costPer1000, MAX_COST_PROCESSES, parseResult, RESULT_SCHEMA_VERSION, type ResultDocumentInput } from "../src/index.ts";

const stats = { count: 10, mean: 5, p50: 4, p95: 9, p99: 10, p999: 10, max: 10, min: 1 };

function doc(): ResultDocumentInput {
  return {
    schemaVersion: RESULT_SCHEMA_VERSION,
    runId: "3f0c6c2e-8a4b-4d7e-9c1a-2b3c4d5e6f70",
    status: "completed",
    target: { name: "node-postgres", version: "0.1.0", system: "Node.js + Postgres", manifestDigest: "sha256:" + "a".repeat(64) },
    environment: {
      kind: "local",
      nodes: 1,
      cpuModel: "AMD EPYC",
      cores: 8,
      memoryBytes: 16e9,
      os: "Linux 6.1",
      node: "v20.19.0",
      k6Version: "v1.8.1",
      gitSha: "b973eae",
      cpuSplit: { generator: "0-1", target: "2-7" },
    },
    startedAt: "2026-11-22T06:00:00.000Z",
    finishedAt: "2026-11-22T06:10:00.000Z",
    profile: "quick",
    cells: [
      {
        workload: "checkout",
        distribution: "zipf",
        parameters: { products: 5000, zipfExponent: 1.25, cartSize: [2, 8] },
        seed: 42,
        maxThroughput: {
          maxMovingAvg10s: 812.4,
          sustainableRate: 800,
          steps: [
            {
              scenario: "step_0",
              offeredRate: 800,
              durationS: 30,
              achievedRate: 799.5,
              completedShare: 0.999,
              errorRate: 0,
              droppedIterations: 0,
              latency: stats,
            },
            {
              scenario: "step_1",
              offeredRate: 1600,
              durationS: 30,
              achievedRate: 900,
              completedShare: 0.56,
              errorRate: 0.2,
              droppedIterations: 900,
              latency: stats,
              failedBecause: ["completed 56% of the offered rate (< 95%)"],
            },
          ],
        },
        stable: {
          offeredRate: 640,
          durationS: 60,
          achievedRate: 639.9,
          errorRate: 0,
          latency: stats,
          byCartSize: { "2": { requests: 10, successful: 9, rejected: 1, errors: 0, latency: stats } },
          histogram: "HISTFAAAACl4nJNpmSzMwMDAxsDAwMjAwMDMAAEgNgPz5HYGGP88P9NZfiYAVIQELg==",
        },
        series: [
          { t: 0, offered: 800, successful: 790, rejected: 1, errors: 0, dropped: 0, p50: 4.2, p99: 12.5 },
          { t: 1, successful: 0, rejected: 0, errors: 0, dropped: 0, p50: null, p99: null },
        ],
        anomalies: { kinds: { "negative-stock": 0 }, total: 0 },
        valid: true,
      },
    ],
    rawData: { dir: ".sfbench/runs/3f0c6c2e", files: ["checkout-zipf.csv.gz"] },
  };
}

describe("result document", () => {
  it("accepts a complete document and fills defaults", () => {
    const r = parseResult(doc());
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.result.cells[0]!.maxThroughput!.sustainableRate).toBe(800);
  });

  it("accepts JSON text", () => expect(parseResult(JSON.stringify(doc())).ok).toBe(true));

  it("names the field of every problem", () => {
    const d = doc() as Record<string, unknown> & ReturnType<typeof doc>;
    d.cells[0]!.stable!.latency = { ...stats, p99: "slow" as unknown as number };
    d.environment.kind = "cloud" as "local";
    d.extra = 1;
    const r = parseResult(d);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors).toContainEqual(expect.stringMatching(/^cells\.0\.stable\.latency\.p99: /));
      expect(r.errors).toContainEqual(expect.stringMatching(/^environment\.kind: .*"local"\|"kubernetes"/));
      expect(r.errors).toContainEqual(expect.stringMatching(/^\(root\): unknown field\(s\) extra/));
    }
  });

  it("requires the error of a failed run", () => {
    const r = parseResult({ ...doc(), status: "failed", cells: [] });
    expect(r).toEqual({ ok: false, errors: ['error: required when status is "failed": {stage, message}'] });
    expect(parseResult({ ...doc(), status: "failed", cells: [], error: { stage: "seed", message: "target answered 500" } }).ok).toBe(true);
  });

  it("keeps an interrupted run with its stage and reason, which it requires", () => {
    const r = parseResult({ ...doc(), status: "interrupted", cells: [] });
    expect(r).toEqual({ ok: false, errors: ['error: required when status is "interrupted": {stage, message}'] });
    const ok = parseResult({
      ...doc(),
      status: "interrupted",
      cells: [],
      error: { stage: "load", message: "interrupted during load: the worker was stopped (SIGTERM)" },
    });
    expect(ok.ok && ok.result.status).toBe("interrupted");
  });

  it("records the target's storage settings in the environment, and names a bad one", () => {
    const d = doc();
    d.environment.storage = { postgres: { instance: "dedicated", fsync: "on", synchronous_commit: "on", full_page_writes: "on", version: "17.5" } };
    const r = parseResult(d);
    expect(r.ok && r.result.environment.storage?.postgres).toEqual({
      instance: "dedicated",
      fsync: "on",
      synchronous_commit: "on",
      full_page_writes: "on",
      version: "17.5",
    });
    d.environment.storage = { postgres: { instance: "private" as "dedicated", fsync: "on", synchronous_commit: "on", full_page_writes: "on" } };
    const bad = parseResult(d);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors).toContainEqual(expect.stringMatching(/^environment\.storage\.postgres\.instance: .*"dedicated"\|"shared"/));
  });

  it("keeps the cost split by process, bounded in labels and their length", () => {
    const d = doc();
    const cost = {
      coreSecondsPer1000: 190,
      throughputPerCore: 5.3,
      peakRssBytes: 1 << 28,
      targetCpuSeconds: 57,
      generatorCpuSeconds: 3,
      generatorCpuShare: 0.1,
    };
    d.cells[0]!.cost = { ...cost, cpuByProcess: { "restate-server": 120.5, "node app/main.ts": 50, "node gateway/main.ts": 19.5 } };
    const r = parseResult(d);
    expect(r.ok && r.result.cells[0]!.cost?.cpuByProcess).toEqual({ "restate-server": 120.5, "node app/main.ts": 50, "node gateway/main.ts": 19.5 });
    d.cells[0]!.cost = { ...cost, cpuByProcess: Object.fromEntries(Array.from({ length: MAX_COST_PROCESSES + 1 }, (_, i) => [`p${i}`, 1])) };
    const many = parseResult(d);
    expect(many.ok).toBe(false);
    if (!many.ok) expect(many.errors).toContainEqual(expect.stringMatching(/^cells\.0\.cost\.cpuByProcess: at most 12 process labels/));
    d.cells[0]!.cost = { ...cost, cpuByProcess: { ["x".repeat(61)]: 1 } };
    expect(parseResult(d).ok).toBe(false);
    d.cells[0]!.cost = { ...cost, cpuByProcess: { postgres: -1 } };
    expect(parseResult(d).ok).toBe(false);
  });

  it("leaves the cost per 1000 out when the stable phase completed nothing, and reads an older document's 0 as unknown", () => {
    const d = doc();
    d.cells[0]!.cost = { throughputPerCore: 0, peakRssBytes: 1 << 28, targetCpuSeconds: 3, generatorCpuSeconds: 1, generatorCpuShare: 0.1 };
    const r = parseResult(d);
    expect(r.ok).toBe(true);
    expect(r.ok && costPer1000(r.result.cells[0]!.cost)).toBeUndefined();
    expect(costPer1000({ coreSecondsPer1000: 0 })).toBeUndefined();
    expect(costPer1000(undefined)).toBeUndefined();
    expect(costPer1000({ coreSecondsPer1000: 38.9 })).toBe(38.9);
  });

  it("requires a reason for an invalid cell", () => {
    const d = doc();
    d.cells[0]!.valid = false;
    expect(parseResult(d)).toEqual({ ok: false, errors: ["cells.0.invalidReason: required when valid is false"] });
  });

  it("refuses another schema version with a readable message", () => {
    const r = parseResult({ ...doc(), schemaVersion: 3 });
    expect(r).toEqual({ ok: false, errors: ["schemaVersion: this reader understands versions 1 and 2, the document has 3"] });
  });

  it("still reads version 1 documents (stored results keep passing), which cannot carry microbenchmarks", () => {
    expect(parseResult({ ...doc(), schemaVersion: 1 }).ok).toBe(true);
    const micro = { supported: false, reason: 'target.json does not declare "micro": true' };
    expect(parseResult({ ...doc(), schemaVersion: 1, micro })).toEqual({
      ok: false,
      errors: ["micro: needs schemaVersion 2 (version 1 documents have no microbenchmarks)"],
    });
    expect(parseResult({ ...doc(), schemaVersion: 2, micro }).ok).toBe(true);
  });

  it("checks the microbenchmark part field by field", () => {
    const micro = {
      supported: true,
      overhead: [{ route: "nope" }],
      emptyMaxRate: { sustainableRate: null, resolution: null },
      pingpong: [],
      divide: [],
      big: [],
    };
    const r = parseResult({ ...doc(), micro });
    expect(r.ok).toBe(false);
  });

  it("reports broken JSON text", () => {
    const r = parseResult("{");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatch(/^\(root\): not valid JSON/);
  });
});
