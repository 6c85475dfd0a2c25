import { describe, expect, it } from "vitest";
import { median, meanInterval, pairedRatio, summarize, tieGroups, tQuantile } from "../src/stats.ts";

describe("statistics of trials", () => {
  it("takes the median of odd and even counts", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it("uses Student's t quantiles from jstat (tabulated values)", () => {
    // two-sided 95%: 12.706 (1 df), 4.303 (2 df), 2.776 (4 df), 2.262 (9 df)
    expect(tQuantile(2)).toBeCloseTo(12.706, 3);
    expect(tQuantile(3)).toBeCloseTo(4.303, 3);
    expect(tQuantile(5)).toBeCloseTo(2.776, 3);
    expect(tQuantile(10)).toBeCloseTo(2.262, 3);
  });

  it("gives the t interval of the mean of three trials", () => {
    // mean 12, s = 2, half-width 4.303 * 2 / sqrt(3) = 4.968
    const i = meanInterval([10, 12, 14])!;
    expect(i.low).toBeCloseTo(12 - 4.968, 2);
    expect(i.high).toBeCloseTo(12 + 4.968, 2);
  });

  it("summarizes trials with median, spread and within-x%-of-the-median", () => {
    const s = summarize([100, 90, 110]);
    expect(s).toMatchObject({ n: 3, median: 100, min: 90, max: 110, mean: 100, stddev: 10 });
    expect(s.cv).toBeCloseTo(0.1, 10);
    // half-width 4.303 * 10 / sqrt(3) = 24.84: within 24.8% of the median
    expect(s.withinShareOfMedian).toBeCloseTo(0.2484, 3);
  });

  it("has no interval for one trial", () => {
    const s = summarize([42]);
    expect(s).toMatchObject({ n: 1, median: 42, stddev: 0, cv: 0, interval: null, withinShareOfMedian: null });
  });

  it("gives the ratio of two systems over paired rounds, symmetric in log space", () => {
    const r = pairedRatio([
      [200, 100],
      [220, 100],
      [180, 100],
    ])!;
    // log ratios ln 2, ln 2.2, ln 1.8: geometric mean (2 * 2.2 * 1.8)^(1/3) = 1.9937
    expect(r.n).toBe(3);
    expect(r.ratio).toBeCloseTo(1.9937, 3);
    expect(r.interval!.low).toBeLessThan(r.ratio);
    expect(r.interval!.high).toBeGreaterThan(r.ratio);
    const inverse = pairedRatio([
      [100, 200],
      [100, 220],
      [100, 180],
    ])!;
    expect(inverse.ratio).toBeCloseTo(1 / r.ratio, 10);
    expect(inverse.interval!.low).toBeCloseTo(1 / r.interval!.high, 10);
  });

  it("leaves out rounds where a system has no value", () => {
    const r = pairedRatio([
      [200, 100],
      [null, 100],
      [150, 0],
    ])!;
    expect(r).toEqual({ n: 1, ratio: 2, interval: null });
    expect(pairedRatio([[null, 1]])).toBeNull();
  });

  it("ties systems whose intervals overlap, ordered by median", () => {
    const groups = tieGroups([
      { name: "c", median: 50, interval: { low: 45, high: 55 } },
      { name: "a", median: 100, interval: { low: 90, high: 110 } },
      { name: "b", median: 95, interval: { low: 85, high: 105 } },
      { name: "d", median: 52, interval: null },
    ]);
    expect(groups).toEqual([["a", "b"], ["d"], ["c"]]);
  });
});
