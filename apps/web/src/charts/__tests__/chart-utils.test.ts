import { describe, expect, it } from "vitest";
import { formatMs, legendOrder, logDomain, logDomainOf, logTicks } from "../components/common.tsx";

describe("log axis helpers", () => {
  it("widens a domain to 1-2-5 steps that contain the data", () => {
    expect(logDomain([2.3, 47])).toEqual([2, 50]);
    expect(logDomain([1, 1000])).toEqual([0.5, 2000]);
    expect(logDomain([0.0004, 3])).toEqual([0.0005, 5]);
    const [lo, hi] = logDomain([7, 7]);
    expect(lo).toBeLessThan(7);
    expect(hi).toBeGreaterThan(7);
  });

  it("ignores null, zero and negative values", () => {
    expect(logDomainOf([null, 0, -3, 4, 40])).toEqual([2, 50]);
    expect(logDomainOf([null, 0])).toBeNull();
  });

  it("ticks each decade at 1-2-5, finer when the range is narrow", () => {
    expect(logTicks(2, 50)).toEqual([2, 5, 10, 20, 50]);
    expect(logTicks(3, 5)).toEqual([3, 4, 5]);
    expect(logTicks(0, 5)).toEqual([]);
  });
});

describe("formatting and legend order", () => {
  it("formats latencies with units", () => {
    expect(formatMs(0)).toBe("0 ms");
    expect(formatMs(0.25)).toBe("250 µs");
    expect(formatMs(3.456)).toBe("3.46 ms");
    expect(formatMs(1500)).toBe("1.5 s");
  });

  it("orders legend items as the series were given", () => {
    const order = legendOrder(["s1_ma", "s0_ma"]);
    const items = [
      { dataKey: "s0_ma", value: "A" },
      { dataKey: "s1_ma", value: "B" },
      { dataKey: "x", value: "C" },
    ];
    expect([...items].sort((a, b) => order(a) - order(b)).map((i) => i.value)).toEqual(["B", "A", "C"]);
  });
});
