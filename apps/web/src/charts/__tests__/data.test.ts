import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseResult } from "@sfbench/core";
import { maxMovingAverage } from "@sfbench/engine";
import { buildCompareData, buildRunData } from "../index.ts";
import { NO_SPANS, breakdownData } from "../data/breakdown.ts";
import { latencyDistribution } from "../data/latency.ts";
import { breakdownPhaseText } from "../data/run.ts";
import { downsample, MAX_POINTS, movingAverage, throughputRows } from "../data/series.ts";
import type { CompareData, RunData } from "../types.ts";
import { BREAKDOWN, cell, doc, histogramOf, ONE_TO_THOUSAND, series } from "./fixtures.ts";

const roundTrip = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** every value in a JSON-ready tree: no undefined, no NaN/Infinity, only plain objects and arrays */
function assertPlainJson(x: unknown, path = "$"): void {
  if (x === null || typeof x === "string" || typeof x === "boolean") return;
  if (typeof x === "number") {
    expect(Number.isFinite(x), `${path} is ${x}`).toBe(true);
    return;
  }
  if (Array.isArray(x)) {
    x.forEach((v, i) => assertPlainJson(v, `${path}[${i}]`));
    return;
  }
  expect(typeof x, `${path} has type ${typeof x}`).toBe("object");
  expect(Object.getPrototypeOf(x), `${path} is not a plain object`).toBe(Object.prototype);
  for (const [k, v] of Object.entries(x as object)) {
    expect(v, `${path}.${k} is undefined`).not.toBeUndefined();
    assertPlainJson(v, `${path}.${k}`);
  }
}

const within = (actual: number, expected: number, relative = 0.002) =>
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(expected * relative + 0.001);

describe("moving average", () => {
  it("is the trailing 10 s mean, null until 10 seconds exist", () => {
    const values = Array.from({ length: 25 }, (_, i) => i * 2);
    const { values: ma, partial } = movingAverage(values);
    expect(partial).toBe(false);
    expect(ma.slice(0, 9)).toEqual(Array(9).fill(null));
    for (let i = 9; i < values.length; i++) {
      const window = values.slice(i - 9, i + 1);
      expect(ma[i]).toBeCloseTo(window.reduce((a, b) => a + b, 0) / 10, 9);
    }
  });

  it("averages what exists when the series is shorter than the window", () => {
    expect(movingAverage([10, 20, 30])).toEqual({ values: [10, 15, 20], partial: true });
  });

  it("counts missing seconds as zero and agrees with the analysis's maxMovingAverage", () => {
    const points = series([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130]).filter((p) => p.t !== 4);
    const data = throughputRows([{ key: "s0", series: points }]);
    expect(data.rows.map((r) => r.t)).toEqual(Array.from({ length: 13 }, (_, i) => i));
    expect(data.rows[4]!.s0).toBe(0);
    expect(data.rows[9]!.s0_ma).toBeCloseTo((10 + 20 + 30 + 40 + 0 + 60 + 70 + 80 + 90 + 100) / 10, 9);
    const best = Math.max(...data.rows.map((r) => (typeof r.s0_ma === "number" ? r.s0_ma : -1)));
    expect(best).toBeCloseTo(maxMovingAverage(points).value, 3);
  });

  it("merges systems of different lengths by second, null where a system has no second", () => {
    const data = throughputRows([
      { key: "s0", series: series([1, 2, 3]) },
      { key: "s1", series: series([5, 5, 5, 5, 5]) },
    ]);
    expect(data.rows).toHaveLength(5);
    expect(data.rows[4]).toEqual({ t: 4, s0: null, s0_ma: null, s1: 5, s1_ma: 5 });
    expect(data.partial).toEqual(["s0", "s1"]);
  });
});

describe("long series", () => {
  it("are averaged into buckets of whole seconds, the moving average kept at each bucket's end", () => {
    const n = 2000;
    const perSecond = Array.from({ length: n }, (_, t) => (t % 2 === 0 ? 100 : 200));
    const data = throughputRows([{ key: "s0", series: series(perSecond) }]);
    expect(data.bucketS).toBe(Math.ceil(n / MAX_POINTS));
    expect(data.rows.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(data.rows[0]).toEqual({ t: 2, s0: 133.333, s0_ma: null });
    expect(data.rows.at(-1)).toEqual({ t: n - 1, s0: 150, s0_ma: 150 });
  });

  it("leave short series alone", () => {
    const rows = [
      { t: 0, a: 1 },
      { t: 1, a: null },
    ];
    expect(downsample(rows)).toEqual({ rows, bucketS: 1 });
  });

  it("p99 keeps the bucket's maximum in the run series", () => {
    const points = series(Array(1500).fill(10)).map((p, t) => ({ ...p, p99: t === 700 ? 900 : 40 }));
    const d = buildRunData(doc({ cells: [{ ...cell("checkout", "uniform"), series: points }] }));
    const rows = d.cells[0]!.series!.rows;
    expect(d.cells[0]!.series!.bucketS).toBe(3);
    expect(Math.max(...rows.map((r) => Number(r.p99)))).toBe(900);
  });
});

describe("latency distribution from the histogram", () => {
  it("boxplot quartiles match the recorded data", () => {
    const { encoded, histogram } = histogramOf(ONE_TO_THOUSAND);
    const d = latencyDistribution(encoded)!;
    // exactly what the histogram says...
    expect(d.p25).toBe(histogram.percentileMs(25));
    expect(d.p50).toBe(histogram.percentileMs(50));
    expect(d.p75).toBe(histogram.percentileMs(75));
    expect(d.p999).toBe(histogram.percentileMs(99.9));
    // ...which is the data within HDR's 3 significant digits
    within(d.p1, 10);
    within(d.p25, 250);
    within(d.p50, 500);
    within(d.p75, 750);
    within(d.p99, 990);
    within(d.p999, 999);
    within(d.min, 1);
    within(d.max, 1000);
    expect(d.count).toBe(1000);
    within(d.mean, 500.5);
  });

  it("eCDF is monotone, starts at 0 and ends at 1, with about 100 points on a log-safe axis", () => {
    const values = [...ONE_TO_THOUSAND.map((v) => v / 10), 5000, 12000];
    const d = latencyDistribution(histogramOf(values).encoded)!;
    const e = d.ecdf;
    expect(e.length).toBeGreaterThan(80);
    expect(e.length).toBeLessThanOrEqual(110);
    expect(e[0]!.p).toBe(0);
    expect(e[e.length - 1]!.p).toBe(1);
    within(e[e.length - 1]!.ms, 12000);
    for (let i = 1; i < e.length; i++) {
      expect(e[i]!.ms).toBeGreaterThanOrEqual(e[i - 1]!.ms);
      expect(e[i]!.p).toBeGreaterThan(e[i - 1]!.p);
    }
    for (const p of e) expect(p.ms).toBeGreaterThan(0);
    // the share at the median latency is one half
    const atMedian = e.filter((p) => p.ms <= d.p50).at(-1)!;
    within(atMedian.p, 0.5, 0.03);
  });

  it("a constant latency gives a degenerate but valid distribution", () => {
    const d = latencyDistribution(histogramOf(Array(50).fill(7)).encoded)!;
    expect(new Set([d.p1, d.p25, d.p50, d.p75, d.p99]).size).toBe(1);
    expect(d.ecdf.at(-1)!.p).toBe(1);
  });

  it("callers get their own copy of a cached distribution", () => {
    const { encoded } = histogramOf([1, 2, 3]);
    const a = latencyDistribution(encoded)!;
    a.ecdf[0]!.ms = -1;
    a.p50 = -1;
    const b = latencyDistribution(encoded)!;
    expect(b.ecdf[0]!.ms).toBeGreaterThan(0);
    expect(b.p50).toBeGreaterThan(0);
  });
});

describe("breakdown", () => {
  const system = { key: "s0", slug: "a", name: "A", color: "#000" };

  it("absent: the empty-state flag with 'no spans for this run', no numbers", () => {
    const d = breakdownData([{ system, raw: undefined }]);
    expect(d.available).toBe(false);
    if (!d.available) expect(d.reason).toBe(NO_SPANS);
    expect(NO_SPANS).toMatch(/^no spans for this run/);
    expect(d).not.toHaveProperty("rows");
  });

  it("present: stacked components per system and per cart size", () => {
    const d = breakdownData([{ system, raw: BREAKDOWN }]);
    expect(d.available).toBe(true);
    if (!d.available) return;
    expect(d.components.map((c) => c.key)).toEqual(["gateway", "function:product", "function:cart", "network"]);
    expect(d.rows[0]).toMatchObject({ label: "A", group: "all", gateway: 1.5, "function:cart": 2, "function:product": 3, network: 4, total: 10.5 });
    expect(d.rows.map((r) => r.group)).toEqual(["all", "2 products", "8 products"]);
  });

  it("says how much of the phase it covers; one from 40% of the requests is flagged, one without coverage too", () => {
    const coverage = {
      requests: 1000,
      traced: 410,
      complete: 400,
      share: 0.4,
      clientMs: 10.5,
      sumMs: 10.5,
      spansMs: 6.5,
      deviation: 0,
      flagged: true,
      flags: ["only 40% of the phase's 1000 requests produced a complete trace (needs >= 90%)"],
    };
    const d = breakdownData([
      { system, raw: { ...BREAKDOWN, coverage } },
      { system: { ...system, key: "s1", name: "B" }, raw: BREAKDOWN },
    ]);
    expect(d.available).toBe(true);
    if (!d.available) return;
    expect(d.coverage[0]).toEqual({
      key: "s0",
      name: "A",
      flagged: true,
      flags: coverage.flags,
      text: "complete traces for 40.0% of the phase's 1,000 requests; the parts add up to 10.50 ms, 0.0% off the measured mean of 10.50 ms",
    });
    expect(d.coverage[1]).toMatchObject({ key: "s1", flagged: true, text: expect.stringMatching(/^coverage not recorded/) });
    const ok = breakdownData([{ system, raw: { ...BREAKDOWN, coverage: { ...coverage, complete: 990, share: 0.99, flagged: false, flags: [] } } }]);
    expect(ok.available && ok.coverage[0]!.flagged).toBe(false);
  });

  it("says which phase its spans come from and what tracing cost there", () => {
    const latency = { count: 300, mean: 2.1, p50: 2, p95: 4, p99: 6, p999: 8, max: 9, min: 1 };
    const traced = { offeredRate: 96, durationS: 10, achievedRate: 96, errorRate: 0, latency, overhead: { p50: 1.043, p99: 0.97 } };
    expect(breakdownPhaseText({ traced, breakdown: BREAKDOWN })).toBe(
      "from a traced phase of 10 s at the stable rate (96/s): p50 1.04x, p99 0.97x the untraced stable phase's",
    );
    expect(breakdownPhaseText({ traced: { ...traced, overhead: { p50: null, p99: null } } })).toMatch(/p50 -, p99 -/);
    // a breakdown stored before the traced phase came from the stable phase itself
    expect(breakdownPhaseText({ breakdown: BREAKDOWN })).toMatch(/^from the stable phase, traced/);
    expect(breakdownPhaseText({})).toBeNull();
  });

  it("in an unknown shape: not drawn, and says so", () => {
    const d = breakdownData([{ system, raw: { gateway: "fast" } }]);
    expect(d.available).toBe(false);
    if (!d.available) expect(d.reason).toMatch(/not in a shape this page reads/);
  });
});

describe("buildCompareData", () => {
  const a = doc({ name: "alpha" });
  const b = doc({
    name: "beta",
    cells: [
      cell("checkout", "uniform", { latencies: ONE_TO_THOUSAND.map((v) => v * 2), breakdown: BREAKDOWN, cost: 9 }),
      cell("checkout", "zipf", { valid: false, invalidReason: "stable phase: 2.49% of iterations were dropped (limit 1%)" }),
    ],
  });
  const failed = doc({ name: "gamma", failed: { stage: "verify", message: "conformance: 3 checks failed" } });
  const input = {
    systems: [
      {
        slug: "alpha",
        name: "Alpha",
        doc: a,
        loc: { TypeScript: { app: 400, gateway: 100 } },
        ratings: { programmingModel: 4.25, understandability: 3.5, count: 4 },
      },
      { slug: "beta", name: "Beta", doc: b, loc: null, ratings: null, scalability: [{ nodes: 1, sustainableRate: 100 }] },
      { slug: "gamma", name: "Gamma", doc: failed },
    ],
  };
  const data: CompareData = buildCompareData(input);

  it("all fixtures are valid result documents", () => {
    for (const d of [a, b, failed]) expect(parseResult(JSON.parse(JSON.stringify(d))).ok).toBe(true);
  });

  it("excludes the failed run and says why", () => {
    expect(data.systems.map((s) => s.slug)).toEqual(["alpha", "beta"]);
    expect(data.excluded).toEqual([{ slug: "gamma", name: "Gamma", reason: expect.stringMatching(/failed at stage "verify": conformance: 3 checks failed/) }]);
    const text = JSON.stringify(data.cells) + JSON.stringify(data.cost) + JSON.stringify(data.loc) + JSON.stringify(data.ratings);
    expect(text).not.toMatch(/"s2/);
    expect(text).not.toContain("Gamma");
  });

  it("keeps one color per system, by position", () => {
    expect(data.systems.map((s) => s.key)).toEqual(["s0", "s1"]);
    expect(new Set(data.systems.map((s) => s.color)).size).toBe(2);
  });

  it("defaults to checkout/uniform and lists every cell present", () => {
    expect(data.defaultCell).toBe("checkout/uniform");
    expect(data.cells.map((c) => c.ref.key)).toEqual(["checkout/uniform", "checkout/zipf", "analytics/uniform"]);
  });

  it("falls back to the first cell present when checkout/uniform is absent", () => {
    const d = buildCompareData({ systems: [{ slug: "x", name: "X", doc: doc({ cells: [cell("analytics", "zipf"), cell("checkout", "zipf")] }) }] });
    expect(d.defaultCell).toBe("checkout/zipf");
  });

  it("an invalid cell gives its invalidReason instead of numbers", () => {
    const zipf = data.cells.find((c) => c.ref.key === "checkout/zipf")!;
    expect(zipf.plotted).toEqual(["s0"]);
    expect(zipf.notes).toContainEqual({ key: "s1", name: "Beta", reason: "invalid: stable phase: 2.49% of iterations were dropped (limit 1%)" });
    expect(zipf.throughput.rows.every((r) => !("s1" in r))).toBe(true);
    expect(zipf.latency.boxes.map((x) => x.key)).toEqual(["s0"]);
    expect(zipf.cartSize!.keys).toEqual(["s0"]);
    expect(data.cost.rows.find((r) => r.cell === "checkout · zipf")).toMatchObject({ s1_cpu: null, s1_tpc: null });
    expect(data.cost.notes.some((n) => n.key === "s1" && n.reason.includes("2.49%"))).toBe(true);
  });

  it("a cell missing from a run is a note, not a zero", () => {
    const an = data.cells.find((c) => c.ref.key === "analytics/uniform")!;
    expect(an.plotted).toEqual(["s0"]);
    expect(an.notes).toContainEqual({ key: "s1", name: "Beta", reason: "this run has no analytics · uniform cell" });
    expect(an.cartSize).toBeNull();
    expect(an.analytics!.byShape.rows.map((r) => r.x)).toEqual(["linear", "fan-out", "exponential"]);
    expect(an.analytics!.linear.rows.map((r) => r.x)).toEqual([1, 5]);
    expect(an.analytics!.fanOut.rows.map((r) => r.x)).toEqual([2, 3]);
    expect(an.analytics!.exponential.rows.map((r) => r.x)).toEqual(["2/4", "3/3"]);
  });

  it("throughput, latency and cart size of the default cell", () => {
    const cu = data.cells.find((c) => c.ref.key === "checkout/uniform")!;
    expect(cu.plotted).toEqual(["s0", "s1"]);
    expect(cu.throughput.rows).toHaveLength(30);
    expect(cu.throughput.maxMovingAvg10s).toEqual({ s0: 95, s1: 95 });
    const [boxA, boxB] = cu.latency.boxes;
    within(boxA!.p50, 500);
    within(boxB!.p50, 1000);
    expect(cu.latency.domain![0]).toBeLessThanOrEqual(boxA!.min);
    expect(cu.latency.domain![1]).toBeGreaterThanOrEqual(boxB!.max);
    expect(cu.cartSize!.rows.map((r) => r.x)).toEqual(["2", "3", "10"]);
    expect(cu.cartSize!.rows[0]).toMatchObject({ s0_n: 2, s1_n: 2 });
  });

  it("breakdown: stacked bars where spans exist, the 'no spans' note where they do not", () => {
    const cu = data.cells.find((c) => c.ref.key === "checkout/uniform")!;
    expect(cu.breakdown.available).toBe(true);
    expect(cu.breakdown.notes).toEqual([{ key: "s0", name: "Alpha", reason: NO_SPANS }]);
    const zipf = data.cells.find((c) => c.ref.key === "checkout/zipf")!;
    expect(zipf.breakdown).toEqual({ available: false, reason: NO_SPANS, notes: [{ key: "s0", name: "Alpha", reason: NO_SPANS }] });
  });

  it("cost per cell, LOC, ratings", () => {
    expect(data.cost.rows[0]).toMatchObject({ cell: "checkout · uniform", s0_cpu: 5, s1_cpu: 9, s0_tpc: 200 });
    expect(data.loc).toEqual({
      available: true,
      rows: [{ key: "s0", name: "Alpha", app: 400, gateway: 100, languages: ["TypeScript"] }],
      notes: [{ key: "s1", name: "Beta", reason: "no lines-of-code count for this version" }],
    });
    expect(data.ratings.rows).toEqual([
      { metric: "Programming model", s0: 4.25, s1: null },
      { metric: "Understandability", s0: 3.5, s1: null },
    ]);
    expect(data.ratings.counts).toEqual({ s0: 4 });
  });

  it("scalability only with two or more node counts", () => {
    expect(data.scalability.available).toBe(false);
    expect(data.scalability.reason).toMatch(/two or more node counts/);
    const d = buildCompareData({
      systems: [
        {
          slug: "a",
          name: "A",
          doc: a,
          scalability: [
            { nodes: 1, sustainableRate: 100 },
            { nodes: 3, sustainableRate: 280 },
          ],
        },
        { slug: "b", name: "B", doc: a, scalability: [{ nodes: 3, sustainableRate: null }] },
      ],
    });
    expect(d.scalability).toEqual({
      available: true,
      reason: null,
      rows: [
        { nodes: 1, s0: 100, s1: null },
        { nodes: 3, s0: 280, s1: null },
      ],
      keys: ["s0", "s1"],
      notes: [{ key: "s1", name: "B", reason: "no sustainable rate at 3 nodes" }],
    });
  });

  it("is plain JSON: JSON.parse(JSON.stringify(x)) deep-equals x", () => {
    expect(roundTrip(data)).toStrictEqual(data);
    assertPlainJson(data);
  });

  it("only failed runs: nothing to plot, every system explained", () => {
    const d = buildCompareData({ systems: [{ slug: "g", name: "G", doc: failed }] });
    expect(d.systems).toEqual([]);
    expect(d.cells).toEqual([]);
    expect(d.defaultCell).toBeNull();
    expect(d.excluded).toHaveLength(1);
    expect(roundTrip(d)).toStrictEqual(d);
  });
});

describe("buildRunData", () => {
  it("a completed run: ramp with sustainable steps marked, series with moving average, latency", () => {
    const d: RunData = buildRunData(doc({ cells: [cell("checkout", "uniform", { breakdown: BREAKDOWN }), cell("analytics", "zipf")] }));
    expect(d.failed).toBeNull();
    expect(d.defaultCell).toBe("checkout/uniform");
    const c = d.cells[0]!;
    expect(c.ramp!.steps.map((s) => [s.offered, s.achieved, s.sustainable])).toEqual([
      [50, 50, true],
      [100, 99, true],
      [200, 120, false],
    ]);
    expect(c.ramp!.steps[2]!.failedBecause[0]).toMatch(/60%/);
    expect(c.ramp!.sustainableRate).toBe(100);
    expect(c.series!.rows).toHaveLength(30);
    expect(c.series!.rows[9]).toMatchObject({ t: 9, offered: 80, ma: (50 + 51 + 52 + 53 + 54) / 5 });
    within(c.latency!.boxes[0]!.p75, 750);
    expect(c.cartSize!.keys).toEqual(["s0"]);
    expect(c.breakdown!.available).toBe(true);
    expect(d.cells[1]!.analytics!.byShape.keys).toEqual(["s0"]);
    expect(d.cells[1]!.breakdown).toMatchObject({ available: false, reason: NO_SPANS });
    expect(roundTrip(d)).toStrictEqual(d);
    assertPlainJson(d);
  });

  it("a failed run is never plotted and says why", () => {
    const d = buildRunData(doc({ failed: { stage: "seed", message: "target did not answer" } }));
    expect(d.status).toBe("failed");
    expect(d.cells).toEqual([]);
    expect(d.failed).toEqual({ stage: "seed", message: "target did not answer", reason: expect.stringMatching(/failed at stage "seed".*never plotted/) });
    expect(roundTrip(d)).toStrictEqual(d);
  });

  it("a cost per request is unknown, never free, when the stable phase completed none (older documents wrote 0)", () => {
    const unknown = cell("checkout", "uniform");
    delete unknown.cost!.coreSecondsPer1000;
    const legacy = cell("checkout", "uniform", { cost: 0 });
    for (const c of [unknown, legacy]) {
      const d = buildRunData(doc({ cells: [c] }));
      expect(d.cells[0]!.cost).toMatchObject({ coreSecondsPer1000: null, throughputPerCore: 200 });
      const compared = buildCompareData({ systems: [{ slug: "x", name: "X", doc: doc({ cells: [c] }) }] });
      expect(compared.cost.rows).toEqual([]);
      expect(compared.cost.notes).toEqual([{ key: "s0", name: "X", reason: expect.stringMatching(/completed no request.*unknown/) }]);
    }
  });

  it("an invalid cell carries its reason and no numbers", () => {
    const d = buildRunData(doc({ cells: [cell("checkout", "uniform", { valid: false, invalidReason: "generator saturated" })] }));
    expect(d.cells[0]).toEqual({
      ref: { key: "checkout/uniform", workload: "checkout", distribution: "uniform", label: "checkout · uniform" },
      valid: false,
      invalidReason: "generator saturated",
      ramp: null,
      series: null,
      latency: null,
      cartSize: null,
      analytics: null,
      breakdown: null,
      breakdownPhase: null,
      cost: null,
      anomalies: null,
    });
  });
});

describe("on the result documents in the repository", () => {
  const dir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../../results");
  const files = (() => {
    try {
      // a campaign's own document (results/campaigns/<id>/campaign.json) sits next to its trials' result documents
      return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json") && basename(f) !== "campaign.json");
    } catch {
      return [];
    }
  })();

  it.skipIf(files.length === 0)("builds compare and run data for every stored result", () => {
    const docs = files.map((f) => {
      const r = parseResult(readFileSync(join(dir, f), "utf8"));
      if (!r.ok) throw new Error(`${f}: ${r.errors.join("; ")}`);
      return r.result;
    });
    for (const d of docs) {
      const run = buildRunData(d);
      expect(roundTrip(run)).toStrictEqual(run);
      for (const c of run.cells) {
        if (!c.valid) continue;
        const ecdf = c.latency?.ecdf.s0 ?? [];
        if (ecdf.length) expect(ecdf.at(-1)!.p).toBe(1);
      }
    }
    const compare = buildCompareData({ systems: docs.slice(0, 4).map((d, i) => ({ slug: `r${i}`, name: `run ${i}`, doc: d })) });
    expect(roundTrip(compare)).toStrictEqual(compare);
    expect(compare.cells.length).toBeGreaterThan(0);
  });
});

describe("the knee procedure next to the knee", () => {
  it("says the warm-up, the step length, the quiet time and how the confirmation went", async () => {
    const { procedureText } = await import("../data/run.ts");
    const mt = {
      maxMovingAvg10s: 100,
      sustainableRate: 90,
      steps: [],
      knee: {
        stoppedBecause: "resolution-reached" as const,
        firstUnsustainableRate: 99,
        resolution: 0.1,
        targetResolution: 0.1,
        confirmation: { count: 2, stepS: 10, candidateRate: 99, confirmedRate: 90, stepsDown: 1 },
      },
    };
    expect(procedureText(mt, { warmupS: 8, stepS: 6, quietMaxS: 4 })).toBe(
      "Procedure: warm-up 8 s (not judged); steps of 6 s; quiet time up to 4 s between steps; confirmation: 2 repeats of 10 s at 99/s, held at 90/s after 1 step down.",
    );
    expect(procedureText({ ...mt, knee: { ...mt.knee, confirmation: undefined } }, { warmupS: 2, stepS: 2, quietMaxS: 1 })).toMatch(
      /not confirmed \(a smoke test\)\.$/,
    );
    expect(procedureText(mt, { warmupS: 8, stepS: 6, quietMaxS: 4, stableDrainS: 12.25, drainMaxS: 60 })).toMatch(
      /held at 90\/s after 1 step down; the stable phase after the target settled \(waited 12\.3 of up to 60 s\)\.$/,
    );
    expect(procedureText(mt, { stepS: 6 })).toBeNull(); // a document from before the procedure
    expect(procedureText(mt, { warmupS: 8, warmupSteps: 3, warmupSettleTolerance: 0.1, warmupSettled: true, stepS: 6, quietMaxS: 4 })).toMatch(
      /^Procedure: warm-up 3 x 8 s \(not judged\), until the target's CPU per request fell by at most 10% from one to the next; steps of 6 s;/,
    );
    expect(procedureText(mt, { warmupS: 8, warmupSteps: 6, warmupSettleTolerance: 0.1, warmupSettled: false, stepS: 6, quietMaxS: 4 })).toContain(
      "warm-up 6 x 8 s (not judged), the target's CPU per request still falling by more than 10% or its cores full at the last;",
    );
    expect(procedureText(mt, { warmupS: 8, stepS: 6, quietMaxS: 30, quietUnsettled: 0 })).toContain("; quiet time up to 30 s between steps; confirmation");
    expect(procedureText(mt, { warmupS: 8, stepS: 6, quietMaxS: 30, quietUnsettled: 2 })).toContain(
      "quiet time up to 30 s between steps (2 steps began before the target settled, on the previous step's backlog);",
    );
    expect(procedureText(mt, { warmupS: 8, stepS: 6, quietMaxS: 30, quietUnsettled: 1 })).toContain("(1 step began before");
    expect(procedureText(mt, { warmupS: 8, stepS: 6, quietMaxS: 4, repeatNarrow: true })).toContain(
      "quiet time up to 4 s between steps; a search step that failed narrowly run again at once; confirmation",
    );
  });

  it("gives the cores the target used per step and at its knee, beside the cores the run gave it", () => {
    const d = doc();
    const mt = d.cells[0]!.maxThroughput!;
    mt.steps = mt.steps.map((s, i) => ({ ...s, targetCores: 0.3 + i * 0.1 }));
    mt.kneeCores = 0.87;
    d.environment.cpuSplit = { generator: "0", target: "1-3" };
    const ramp = buildRunData(d).cells[0]!.ramp!;
    expect(ramp.steps.map((s) => s.targetCores)).toEqual(mt.steps.map((_, i) => 0.3 + i * 0.1));
    expect(ramp.kneeCores).toEqual({ used: 0.87, given: 3 });
    // a document from before the ramp read the target's CPU, or a run without a split
    delete mt.kneeCores;
    delete d.environment.cpuSplit;
    mt.steps = mt.steps.map(({ targetCores: _, ...s }) => s);
    const old = buildRunData(d).cells[0]!.ramp!;
    expect(old.kneeCores).toBeNull();
    expect(old.steps.every((s) => s.targetCores === null)).toBe(true);
  });

  it("marks a step the search ran again, only where its numbers show a narrow failure followed by its rate", async () => {
    const { rampData } = await import("../data/run.ts");
    // the fixture's first step, answering fast: only the served share differs
    const base = cell("checkout", "uniform").maxThroughput!.steps[0]!;
    const step = (offeredRate: number, completedShare: number, repeated = false) => ({
      ...base,
      offeredRate,
      completedShare,
      latency: { ...base.latency, p99: 155 },
      ...(repeated ? { repeated: true as const } : {}),
    });
    const d = rampData({
      maxMovingAvg10s: 100,
      sustainableRate: 100,
      steps: [step(50, 1), step(100, 0.93, true), step(100, 1), step(200, 0.7, true), step(141, 1)],
    });
    expect(d.steps.map((s) => s.repeated)).toEqual([false, true, false, false, false]);
  });
});
