/**
 * The fault, scale-up and scalability analyses on synthetic per-second
 * series whose answers are known by construction.
 */
import type { SeriesPoint } from "@sfbench/core";
import { FaultResult, ScaleUpResult, ScalabilityPoint } from "@sfbench/core";
import { describe, expect, it } from "vitest";
import { analyzeFault, type FailedRequest } from "../src/resilience/fault.ts";
import { scalabilityPoints } from "../src/resilience/scalability.ts";
import { analyzeScaleUp } from "../src/resilience/scale-up.ts";

/** A series from successful counts per second (t = index), with optional p99s and errors. */
function series(successful: number[], extra: { p99?: (number | null)[]; errors?: number[]; dropped?: number[] } = {}): SeriesPoint[] {
  return successful.map((s, t) => ({
    t,
    offered: 100,
    successful: s,
    rejected: 0,
    errors: extra.errors?.[t] ?? 0,
    dropped: extra.dropped?.[t] ?? 0,
    p50: 5,
    p99: extra.p99 ? (extra.p99[t] ?? null) : 20,
  }));
}

describe("the fault analysis", () => {
  // 10 s at 100/s, the kill at 10.4 s, 0 for 2 s, 50 for 1 s, 85 for 1 s, then back at 95-100
  const rates = [...Array<number>(10).fill(100), 40, 0, 0, 50, 85, 95, 100, 97, 100, 100];
  const p99 = [...Array<number>(10).fill(20), 900, null, null, 1500, 300, 40, 25, 22, 20, 20];
  const failures: FailedRequest[] = [
    { atS: 9.9, status: 500 }, // before the kill: not the fault's
    { atS: 10.41, status: 0 },
    { atS: 10.5, status: 0 },
    { atS: 11.2, status: 0 },
    { atS: 12.9, status: 502 },
  ];
  const input = { series: series(rates, { p99, dropped: [...Array<number>(11).fill(0), 30, 30] }), faultAtS: 10.4, offeredRate: 100, failures };

  it("measures the error window, the recovery to within 10% of the baseline, and what was lost and failed", () => {
    const r = analyzeFault(input);
    expect(r.baselineRate).toBe(100);
    expect(r.baselineSeconds).toBe(10);
    expect(r.errorWindow!.startS).toBeCloseTo(0.01, 6);
    expect(r.errorWindow!.endS).toBeCloseTo(2.5, 6);
    expect(r.errorWindow!.durationS).toBeCloseTo(2.49, 6);
    // second 15 (95) starts 3 s at >= 90: recovered 4.6 s after the kill
    expect(r.recoveredAfterS).toBeCloseTo(4.6, 6);
    expect(r).toMatchObject({ lost: 3, failed: 1, dropped: 60, minRate: 0, baselineP99Ms: 20, peakP99Ms: 1500, tolerance: 0.1, sustainS: 3 });
    // seconds 10..14 lack 60 + 100 + 100 + 50 + 15
    expect(r.missingSuccessful).toBe(325);
    expect(FaultResult.parse({ ...r, kill: { node: 0, nodes: 1, signal: "SIGKILL", atS: 10.4, restarted: true, restartHealthyAfterS: 1.2 } })).toBeTruthy();
  });

  it("a one-second dip at 85 is not a recovery: the throughput must stay back for sustainS seconds", () => {
    const r = analyzeFault({ ...input, series: series([...Array<number>(10).fill(100), 0, 95, 0, 100, 100, 100]), failures: [] });
    expect(r.recoveredAfterS).toBeCloseTo(2.6, 6);
    expect(r.errorWindow).toBeNull();
  });

  it("a fault the system does not feel recovers at once and loses nothing", () => {
    const r = analyzeFault({ ...input, series: series(Array<number>(20).fill(100)), failures: [] });
    expect(r).toMatchObject({ recoveredAfterS: 0, lost: 0, failed: 0, missingSuccessful: 0, minRate: 100, errorWindow: null });
  });

  it("a target that never comes back has no recovery time, and everything after the kill is missing", () => {
    const r = analyzeFault({ ...input, series: series([...Array<number>(10).fill(100), 0, 0, 0, 0]), failures: [] });
    expect(r.recoveredAfterS).toBeNull();
    expect(r.missingSuccessful).toBe(400);
    expect(r.notRecovered).toBe(
      "in the 4 s after the kill, 0 s reached the threshold but never 3 s in a row at or above 90.0/s (10% below the baseline); best 0.0/s, last second 0.0/s",
    );
  });

  it("says when the phase ended too soon after the kill to see a recovery, and says nothing when it recovered", () => {
    const short = analyzeFault({ ...input, series: series([...Array<number>(10).fill(100), 100, 100]), failures: [] });
    expect(short.recoveredAfterS).toBeNull();
    expect(short.notRecovered).toMatch(/^the phase had 2 s of series after the kill, fewer than the 3 s in a row/);
    expect(analyzeFault(input).notRecovered).toBeUndefined();
    expect(
      FaultResult.safeParse({ ...short, kill: { node: 0, nodes: 1, signal: "SIGKILL", atS: 10.4, restarted: true, restartHealthyAfterS: 1 } }).success,
    ).toBe(true);
  });

  it("refuses a fault with nothing before it and a series out of order, naming the field", () => {
    expect(() => analyzeFault({ ...input, faultAtS: 0.5 })).toThrow(/^faultAtS: 0\.5 s leaves no whole second of the series before it/);
    const shuffled = series([100, 100, 100]);
    shuffled[2]!.t = 1;
    expect(() => analyzeFault({ ...input, series: shuffled, faultAtS: 1 })).toThrow(/^series: t must increase/);
    expect(() => analyzeFault({ ...input, tolerance: 0 })).toThrow(/^tolerance: 0 must be above 0/);
  });
});

describe("the scale-up analysis", () => {
  // one node saturated at 100/s under 120/s offered; a node added at 20.5 s; throughput climbs to 120 by 25
  const rates = [...Array<number>(20).fill(100), 100, 95, 104, 110, 114, 119, 120, 121, 119, 120, 120, 120, 121, 119, 120, 120];
  const p99 = [...Array<number>(20).fill(800), 1200, 2500, 1400, 900, 500, 60, ...Array<number>(10).fill(40)];
  const errors = [...Array<number>(21).fill(0), 4, 1, ...Array<number>(13).fill(0)];

  it("finds when the added capacity shows in throughput, with the latency spike and the errors around it", () => {
    const r = analyzeScaleUp({
      series: series(rates, { p99, errors }),
      addedAtS: 20.5,
      nodeHealthyAfterS: 0.8,
      offeredRate: 120,
      nodesBefore: 1,
      nodesAfter: 2,
    });
    expect(r.baselineRate).toBe(100);
    expect(r.settledRate).toBe(120);
    // level 100 + 0.9 x 20 = 118: second 25 (119) and the next two
    expect(r.capacityShownAfterS).toBeCloseTo(4.5, 6);
    expect(r.gain).toBeCloseTo(0.2, 9);
    expect(r).toMatchObject({ baselineP99Ms: 800, peakP99Ms: 2500, errors: 5, nodeHealthyAfterS: 0.8 });
    expect(ScaleUpResult.parse(r)).toEqual(r);
  });

  it("says no capacity showed when the settled rate is the baseline", () => {
    const r = analyzeScaleUp({
      series: series(Array<number>(40).fill(100)),
      addedAtS: 20,
      nodeHealthyAfterS: 1,
      offeredRate: 120,
      nodesBefore: 1,
      nodesAfter: 2,
    });
    expect(r.capacityShownAfterS).toBeNull();
    expect(r.gain).toBe(0);
  });

  it("needs enough of the phase after the node was added", () => {
    expect(() =>
      analyzeScaleUp({ series: series(Array<number>(25).fill(100)), addedAtS: 20, nodeHealthyAfterS: 1, offeredRate: 120, nodesBefore: 1, nodesAfter: 2 }),
    ).toThrow("series: 5 s after the node was added; the analysis needs at least settleSeconds + sustainS = 13 s");
  });
});

describe("the scalability points", () => {
  it("speedup over one node and efficiency per node count, in node order", () => {
    const points = scalabilityPoints([
      { nodes: 4, maxThroughput: 300, sustainableRate: 280 },
      { nodes: 1, maxThroughput: 100, sustainableRate: 90 },
      { nodes: 2, maxThroughput: 180, sustainableRate: null },
    ]);
    expect(points).toEqual([
      { nodes: 1, maxThroughput: 100, sustainableRate: 90, speedup: 1, efficiency: 1 },
      { nodes: 2, maxThroughput: 180, sustainableRate: null, speedup: 1.8, efficiency: 0.9 },
      { nodes: 4, maxThroughput: 300, sustainableRate: 280, speedup: 3, efficiency: 0.75 },
    ]);
    for (const p of points) ScalabilityPoint.parse(p);
  });

  it("scales from the fewest nodes measured when one node was not", () => {
    expect(
      scalabilityPoints([
        { nodes: 2, maxThroughput: 200, sustainableRate: 190 },
        { nodes: 4, maxThroughput: 400, sustainableRate: 380 },
      ]).map((p) => [p.speedup, p.efficiency]),
    ).toEqual([
      [2, 1],
      [4, 1],
    ]);
  });

  it("refuses a count measured twice or a base without throughput", () => {
    expect(() =>
      scalabilityPoints([
        { nodes: 2, maxThroughput: 1, sustainableRate: null },
        { nodes: 2, maxThroughput: 2, sustainableRate: null },
      ]),
    ).toThrow("measured: node count 2 appears twice");
    expect(() => scalabilityPoints([{ nodes: 1, maxThroughput: 0, sustainableRate: null }])).toThrow(/the fewest nodes \(1\) reached no throughput/);
    expect(() => scalabilityPoints([])).toThrow("measured: no node count was measured");
  });
});
