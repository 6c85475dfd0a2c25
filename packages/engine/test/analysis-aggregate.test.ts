import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { MaxThroughput, OutcomeSummary, StableLoad } from "@sfbench/core";
import { aggregateK6 } from "../src/analysis/aggregate.ts";
import { LatencyHistogram } from "../src/analysis/histogram.ts";
import { maxThroughputResult, setupOpsResult, stableResult } from "../src/analysis/result-parts.ts";

const HEADER = "metric_name,timestamp,metric_value,error_code,expected_response,method,scenario,status,extra_tags,metadata";
const T0 = 1_800_000_000_000; // on a second boundary

type Row = [ts: number, line: string];
const http = (end: number, ms: number, scenario: string, status: number, tags: string): Row => [
  end,
  `http_req_duration,${end},${ms.toFixed(6)},${status === 0 ? 1050 : ""},${status === 200 || status === 409},POST,${scenario},${status},${tags},`,
];
/** HDR reports the highest value equivalent to the recorded one (within 0.1%) */
const ms = (x: number) => expect.closeTo(x, 1);
const plain = (metric: string, ts: number, value: number, scenario: string): Row => [ts, `${metric},${ts},${value.toFixed(6)},,,,${scenario},,,`];

/** One iteration: create-user (5 ms), then checkout; k6 emits the iteration samples at its end. */
function iteration(scenario: string, start: number, status: number, ms: number, cartSize: number): Row[] {
  const end = start + 5 + ms;
  return [
    http(start + 5, 5, scenario, 200, "op=create-user"),
    http(end, ms, scenario, status, `cart_size=${cartSize}&op=checkout`),
    plain("checks", end, status === 200 || status === 409 ? 1 : 0, scenario),
    plain("iteration_duration", end, end - start, scenario),
    plain("iterations", end, 1, scenario),
  ];
}

const dir = mkdtempSync(join(tmpdir(), "sfbench-aggregate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, rows: Row[]): string {
  const path = join(dir, name);
  const sorted = rows.sort((a, b) => a[0] - b[0]).map((r) => r[1]);
  writeFileSync(path, gzipSync([HEADER, ...sorted, ""].join("\n")));
  return path;
}

describe("aggregating a k6 CSV file", () => {
  // step_0: 2/s for 2 s; step_1: 4/s for 1 s with the last iteration dropped
  const rows: Row[] = [
    ...iteration("step_0", T0, 200, 10, 2),
    ...iteration("step_0", T0 + 500, 200, 20, 3),
    ...iteration("step_0", T0 + 1000, 409, 30, 2),
    ...iteration("step_0", T0 + 1500, 500, 900, 3), // ends during step_1, still counts for step_0
    ...iteration("step_1", T0 + 2000, 200, 10, 2),
    ...iteration("step_1", T0 + 2250, 0, 1000, 3),
    ...iteration("step_1", T0 + 2500, 404, 10, 2),
    plain("dropped_iterations", T0 + 2750, 1, "step_1"),
    [T0 + 100, `http_req_duration,${T0 + 100},3.000000,,true,GET,step_0,200,,`], // no op tag
    [T0 + 100, `http_req_blocked,${T0 + 100},3.000000,,true,GET,step_0,200,op=checkout,`], // not aggregated
  ];

  it("counts each step's requests by outcome and derives its rates", async () => {
    const a = await aggregateK6(write("steps.csv.gz", rows), { op: "checkout", stepRates: [2, 4, 8], rejections: "audited" });
    expect(a.steps.map((s) => s.scenario)).toEqual(["step_0", "step_1"]);
    expect(a.missingSteps).toEqual(["step_2"]);
    const [s0, s1] = a.steps;
    expect(s0).toMatchObject({
      index: 0,
      offeredRate: 2,
      startS: 0,
      durationS: 2,
      durationEstimated: true,
      requests: 4,
      successful: 2,
      rejected: 1,
      errors: 1,
      iterations: 4,
      droppedIterations: 0,
      achievedRate: 1,
      completedRate: 1.5,
      completedShare: 0.75,
      errorRate: 0.25,
    });
    expect(s0!.latency).toMatchObject({ count: 3, p50: ms(20), min: 10, max: ms(30) });
    expect(s1).toMatchObject({
      offeredRate: 4,
      startS: 2,
      durationS: 1,
      requests: 3,
      successful: 1,
      rejected: 0,
      errors: 2,
      iterations: 3,
      droppedIterations: 1,
      droppedShare: 0.25,
      achievedRate: 1,
      completedShare: 0.25,
    });
    expect(a).toMatchObject({ startMs: T0, iterations: 7, droppedIterations: 1, untaggedRequests: 1, checks: { passes: 4, fails: 3 } });
  });

  it("counts a 409 as an error where the workload knows it cannot be right (the default), with no latency to its credit", async () => {
    const a = await aggregateK6(write("failures.csv.gz", rows), { op: "checkout", stepRates: [2, 4, 8] });
    expect(a.steps[0]).toMatchObject({ requests: 4, successful: 2, rejected: 0, errors: 2, completedShare: 0.5, errorRate: 0.5 });
    // the 409's 30 ms is not among the answered latencies
    expect(a.steps[0]!.latency).toMatchObject({ count: 2, max: ms(20) });
    expect(a.overall).toMatchObject({ rejected: 0 });
  });

  it("uses configured step durations when given", async () => {
    const a = await aggregateK6(write("durations.csv.gz", rows), { op: "checkout", stepRates: [2, 4], stepDurationsS: [4, 1], rejections: "audited" });
    expect(a.steps[0]).toMatchObject({ durationS: 4, durationEstimated: false, achievedRate: 0.5, completedShare: 0.375 });
  });

  it("buckets requests by the second they ended in", async () => {
    const a = await aggregateK6(write("series.csv.gz", rows), { op: "checkout", stepRates: [2, 4], rejections: "audited" });
    expect(a.perSecond).toEqual([
      { t: 0, offered: 2, successful: 2, rejected: 0, errors: 0, dropped: 0, p50: ms(10), p99: ms(20) },
      { t: 1, offered: 2, successful: 0, rejected: 1, errors: 0, dropped: 0, p50: ms(30), p99: ms(30) },
      { t: 2, offered: 4, successful: 1, rejected: 0, errors: 2, dropped: 1, p50: ms(10), p99: ms(10) },
      { t: 3, successful: 0, rejected: 0, errors: 1, dropped: 0, p50: null, p99: null },
    ]);
    expect(a.lateSamples).toBe(0);
  });

  it("breaks the measured request down by cart size and summarises the setup requests", async () => {
    const a = await aggregateK6(write("tags.csv.gz", rows), { op: "checkout", stepRates: [2, 4], rejections: "audited" });
    expect(a.overall).toMatchObject({ requests: 7, successful: 3, rejected: 1, errors: 3 });
    expect(Object.keys(a.byTag)).toEqual(["cart_size"]);
    expect(a.byTag.cart_size!["2"]).toMatchObject({ requests: 4, successful: 2, rejected: 1, errors: 1, latency: { count: 3 } });
    expect(a.byTag.cart_size!["3"]).toMatchObject({ requests: 3, successful: 1, errors: 2, latency: { count: 1, p50: ms(20) } });
    expect(Object.keys(a.setupOps)).toEqual(["create-user"]);
    expect(a.setupOps["create-user"]).toMatchObject({ requests: 7, successful: 7, latency: { p50: ms(5) } });
    expect(a.overall.histogram.count).toBe(4);
  });

  it("breaks queries down by shape and by (top, depth)", async () => {
    const q = (end: number, shape: string, top: number, depth: number): Row =>
      http(end, 7, "step_0", 200, `op=freq-items&shape=${shape}&top=${top}&depth=${depth}`);
    const a = await aggregateK6(write("shapes.csv.gz", [q(T0 + 10, "linear", 1, 5), q(T0 + 20, "linear", 1, 5), q(T0 + 30, "fan-out", 12, 2)]), {
      op: "freq-items",
      stepRates: [3],
    });
    expect(Object.keys(a.byTag)).toEqual(["shape", "top/depth"]);
    expect(Object.keys(a.byTag.shape!)).toEqual(["fan-out", "linear"]);
    expect(a.byTag["top/depth"]).toMatchObject({ "1/5": { requests: 2 }, "12/2": { requests: 1 } });
    expect(a.steps[0]).toMatchObject({ requests: 3, durationEstimated: true });
  });

  it("keeps counting a latency that arrives long after its second, outside the percentiles", async () => {
    const late: Row[] = [http(T0 + 100, 10, "step_0", 200, "op=checkout"), http(T0 + 20_100, 10, "step_0", 200, "op=checkout")];
    const path = join(dir, "late.csv.gz");
    writeFileSync(path, gzipSync([HEADER, late[0]![1], late[1]![1], http(T0 + 200, 10, "step_0", 200, "op=checkout")[1]].join("\n")));
    const a = await aggregateK6(path, { op: "checkout", stepRates: [1] });
    expect(a.lateSamples).toBe(1);
    expect(a.perSecond[0]).toMatchObject({ successful: 2, p50: ms(10) });
    expect(a.perSecond).toHaveLength(21);
    expect(a.overall.successful).toBe(3);
  });

  it("gives an empty aggregate for a file with a header only", async () => {
    const path = join(dir, "empty.csv");
    writeFileSync(path, HEADER + "\n");
    const a = await aggregateK6(path, { op: "checkout", stepRates: [10] });
    expect(a).toMatchObject({ perSecond: [], steps: [], missingSteps: ["step_0"], overall: { requests: 0 } });
  });

  it("fills the result document's max-throughput, stable-load and setup parts", async () => {
    const a = await aggregateK6(write("result.csv.gz", rows), { op: "checkout", stepRates: [2, 4], rejections: "audited" });
    const mt = MaxThroughput.parse(maxThroughputResult(a));
    // step_0's measured window is [0.5 s, 2 s]: one 200 and one 409 ended in it
    expect(mt).toMatchObject({ maxMovingAvg10s: expect.closeTo(2 / 3, 6), movingAvgPartial: true, sustainableRate: null });
    expect(mt.steps[0]).toMatchObject({ measuredWindowS: 1.5, achievedRate: expect.closeTo(2 / 3, 6), completedShare: expect.closeTo(2 / 3, 6) });
    expect(mt.steps[0]!.failedBecause).toEqual(["completed 66.67% of the offered rate within the step (needs >= 95%)", "error rate 25% (needs < 1%)"]);
    expect(LatencyHistogram.decode(mt.steps[0]!.histogram!).stats()).toEqual(a.steps[0]!.latency);
    expect(() => stableResult(a)).toThrow(/exactly one step.*step_0 \(2\), step_1 \(4\)/);
    const one = await aggregateK6(
      write(
        "stable.csv.gz",
        rows.filter((r) => r[1].includes("step_0")),
      ),
      { op: "checkout", stepRates: [2], rejections: "audited" },
    );
    const stable = StableLoad.parse(stableResult(one));
    expect(stable).toMatchObject({ offeredRate: 2, durationS: 2, achievedRate: 1, errorRate: 0.25, completedShare: expect.closeTo(2 / 3, 6) });
    expect(Object.keys(stable.byCartSize!)).toEqual(["2", "3"]);
    expect(stable.byShape).toBeUndefined();
    expect(OutcomeSummary.parse(setupOpsResult(one)["create-user"])).toMatchObject({ requests: 4 });
  });

  it("counts a step's completions inside its measured window: a step that only catches up after its end is not sustainable", async () => {
    // 10/s offered for 4 s to a target that serves 9/s in order: every checkout answers 200 within 0.5 s,
    // but only after the step ended does the last one finish
    const overloaded: Row[] = [];
    for (let i = 0; i < 40; i++) {
      const start = T0 + 100 * i;
      const end = T0 + 111 * i + 50;
      overloaded.push(http(end, end - start - 5, "step_0", 200, "cart_size=2&op=checkout"), http(start + 5, 5, "step_0", 200, "op=create-user"));
      overloaded.push(plain("iteration_duration", end, end - start, "step_0"), plain("iterations", end, 1, "step_0"));
    }
    const a = await aggregateK6(write("overloaded.csv.gz", overloaded), { op: "checkout", stepRates: [10], stepDurationsS: [4] });
    const step = a.steps[0]!;
    expect(step.completedShare).toBe(1); // every request of the step, counted whenever it ended
    expect(step.latency.p99).toBeLessThan(1000);
    // window [1 s, 4 s]: checkouts 9..35 ended in it, 27 in 3 s
    expect(step.window).toMatchObject({ durationS: 3, completed: 27, completedRate: 9, completedShare: 0.9, peakRate: 9, peakWindowS: 3 });
    const mt = maxThroughputResult(a);
    expect(mt.sustainableRate).toBeNull();
    expect(mt.steps[0]!.failedBecause).toEqual(["completed 90% of the offered rate within the step (needs >= 95%)"]);
    expect(mt.maxMovingAvg10s).toBe(9);
    // the peak is at least every step's achieved rate
    expect(mt.maxMovingAvg10s).toBeGreaterThanOrEqual(mt.steps[0]!.achievedRate);
  });

  it("judges a step also on what it scheduled in its window: requests begun there and answered within the latency bound", async () => {
    const { stepWindow } = await import("../src/analysis/aggregate.ts");
    // 10/s for 5 s, every request ends inside the window; only half of those begun in it were answered within the bound
    const ends: number[] = [];
    const inBound: number[] = [];
    for (let t = 0; t < 5_000; t += 100) {
      ends.push(T0 + t + 50);
      if (t % 200 === 0) inBound.push(T0 + t);
    }
    const w = stepWindow({ successful: ends, rejected: [] }, T0, 5, 10, inBound);
    expect(w.completedRate).toBeCloseTo(10, 0); // the served rate by end time kept up
    expect(w.scheduledShare).toBeCloseTo(0.5, 1);
    expect(w.completedShare).toBe(w.scheduledShare); // the lower share is judged
    // without begin times (documents and callers from before) only the served share counts
    expect(stepWindow({ successful: ends, rejected: [] }, T0, 5, 10).completedShare).toBeCloseTo(1, 1);
  });

  it("takes the peak as the densest 10 s inside the measured window", async () => {
    const { densest, stepWindow } = await import("../src/analysis/aggregate.ts");
    expect(densest([1, 2, 3, 10, 11, 12, 13], 0, 20, 3)).toBe(4);
    expect(densest([1, 2, 3, 19, 20], 0, 20, 5)).toBe(3);
    expect(densest([], 0, 20, 5)).toBe(0);
    // 30 s at 10/s, with 20/s between 10 s and 15 s
    const ends: number[] = [];
    for (let t = 0; t < 30_000; t += 100) ends.push(T0 + t + 50);
    for (let t = 10_000; t < 15_000; t += 100) ends.push(T0 + t + 60);
    const w = stepWindow({ successful: ends, rejected: [] }, T0, 30, 10);
    expect(w.peakWindowS).toBe(10);
    expect(w.peakRate).toBeCloseTo(15, 0);
    expect(w.achievedRate).toBeGreaterThan(10);
    expect(w.peakRate).toBeGreaterThanOrEqual(w.achievedRate);
  });
});
