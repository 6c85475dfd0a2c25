import { describe, expect, it } from "vitest";
import { HIGHEST_US, LatencyHistogram, mergeHistograms } from "../src/analysis/histogram.ts";

describe("latency histogram", () => {
  it("reports stats in milliseconds within 0.1%", () => {
    const h = LatencyHistogram.create();
    for (let ms = 1; ms <= 1000; ms++) h.recordMs(ms);
    const s = h.stats();
    expect(s.count).toBe(1000);
    expect(s.mean).toBeCloseTo(500.5, 0);
    for (const [got, want] of [
      [s.p50, 500],
      [s.p95, 950],
      [s.p99, 990],
      [s.p999, 999],
      [s.max, 1000],
      [s.min, 1],
    ] as const)
      expect(Math.abs(got - want) / want).toBeLessThan(0.001);
  });

  it("gives zeros and null percentiles when empty", () => {
    const h = LatencyHistogram.create();
    expect(h.stats()).toEqual({ count: 0, mean: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, min: 0 });
    expect(h.percentileMs(50)).toBeNull();
  });

  it("survives an encode/decode round trip with the same stats", () => {
    const h = LatencyHistogram.create();
    for (let i = 0; i < 5000; i++) h.recordMs(0.2 + (i % 97) * 3.7);
    const back = LatencyHistogram.decode(h.encode());
    expect(back.stats()).toEqual(h.stats());
    expect(back.encode()).toBe(h.encode());
  });

  it("merges decoded histograms into the same result as recording everything in one", () => {
    const [a, b, all] = [LatencyHistogram.create(), LatencyHistogram.create({ packed: true }), LatencyHistogram.create()];
    for (let i = 0; i < 300; i++) {
      a.recordMs(i);
      all.recordMs(i);
      b.recordMs(1000 + i * 2);
      all.recordMs(1000 + i * 2);
    }
    const merged = mergeHistograms([LatencyHistogram.decode(a.encode()), LatencyHistogram.decode(b.encode())]);
    expect(merged.stats()).toEqual(all.stats());
    expect(merged.count).toBe(600);
  });

  it("clamps values to 1 us .. 60 s", () => {
    const h = LatencyHistogram.create();
    h.recordMs(0);
    h.recordMs(120_000);
    expect(h.stats().min).toBe(0.001);
    expect(h.stats().max).toBe(HIGHEST_US / 1000);
  });

  it("says what is wrong with a bad encoding", () => {
    expect(() => LatencyHistogram.decode("not base64!")).toThrow(/not an encoded HDR histogram/);
  });
});
