import { describe, expect, it } from "vitest";
import { median, medianInterval, meanInterval, orderStatisticCoverage, pairedRatio, summarize, tieGroups, tQuantile } from "../src/stats.ts";

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

  it("gives the exact binomial coverage of order statistics (the tabulated values)", () => {
    // min..max of n values misses the median only when all fall on one side: 1 - 2 * 0.5^n
    expect(orderStatisticCoverage(1, 3)).toBe(0.75);
    expect(orderStatisticCoverage(1, 5)).toBe(0.9375);
    expect(orderStatisticCoverage(1, 6)).toBeCloseTo(0.96875, 10);
    // x(2)..x(8) of 9: 1 - 2 * (1 + 9) / 512
    expect(orderStatisticCoverage(2, 9)).toBeCloseTo(0.9609375, 10);
    // x(6)..x(15) of 20 is the 95% pair of the tables (0.9586), x(7)..x(14) falls short (0.8847)
    expect(orderStatisticCoverage(6, 20)).toBeCloseTo(0.9586, 4);
    expect(orderStatisticCoverage(7, 20)).toBeCloseTo(0.8847, 4);
  });

  it("takes the median's interval between order statistics: min..max below 6 trials, with the coverage it has", () => {
    expect(medianInterval([14, 10, 12])).toEqual({ low: 10, high: 14, coverage: 0.75 });
    expect(medianInterval([5, 1, 4, 2, 3])).toEqual({ low: 1, high: 5, coverage: 0.9375 });
    expect(medianInterval([7])).toBeNull();
    // nine trials: the narrowest pair reaching 95% is the second smallest and second largest
    const nine = medianInterval([9, 1, 8, 2, 7, 3, 6, 4, 5])!;
    expect([nine.low, nine.high]).toEqual([2, 8]);
    expect(nine.coverage).toBeGreaterThanOrEqual(0.95);
    // twenty: the sixth and fifteenth
    const twenty = medianInterval(Array.from({ length: 20 }, (_, i) => 20 - i))!;
    expect([twenty.low, twenty.high]).toEqual([6, 15]);
  });

  it("is not widened by one far-off trial, where the t interval of the mean is", () => {
    const trials = [100, 101, 99, 102, 98, 103, 97, 100, 20];
    expect(medianInterval(trials)).toMatchObject({ low: 97, high: 102 });
    expect(median(trials)).toBe(100);
    // mean 91.1, s 26.7: the mean's interval spans about 70.6..111.6, eight times as wide, for one bad trial
    const t = meanInterval(trials)!;
    expect(t.high - t.low).toBeGreaterThan(8 * (102 - 97));
  });

  it("summarizes trials with median, spread and within-x%-of-the-median", () => {
    const s = summarize([100, 90, 110]);
    expect(s).toMatchObject({ n: 3, median: 100, min: 90, max: 110, mean: 100, stddev: 10 });
    expect(s.cv).toBeCloseTo(0.1, 10);
    // three trials: min..max, 75% coverage; its farthest end is 10% from the median
    expect(s.interval).toEqual({ low: 90, high: 110, coverage: 0.75 });
    expect(s.withinShareOfMedian).toBeCloseTo(0.1, 10);
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
