import { describe, expect, it } from "vitest";
import { generatorSaturated, maxMovingAverage, sustainableRate, type StepLike } from "../src/analysis/metrics.ts";

const series = (values: number[], from = 0) => values.map((successful, i) => ({ t: from + i, successful }));

describe("maximum of the moving average", () => {
  it("takes the best trailing 10 s window", () => {
    // 0..4: 0/s, 5..14: 100/s, 15..19: 50/s -> best window is 5..14
    const s = series([...Array(5).fill(0), ...Array(10).fill(100), ...Array(5).fill(50)]);
    expect(maxMovingAverage(s)).toEqual({ value: 100, atS: 14, windowS: 10, partial: false });
  });

  it("averages a partial spike over the whole window", () => {
    const s = series([...Array(10).fill(10), 200, ...Array(9).fill(10)]);
    expect(maxMovingAverage(s).value).toBe(29);
  });

  it("treats missing seconds as zero", () => {
    const s = [
      { t: 0, successful: 10 },
      { t: 9, successful: 10 },
      { t: 10, successful: 10 },
    ];
    expect(maxMovingAverage(s, 10)).toMatchObject({ value: 2, atS: 9 });
  });

  it("uses what exists for a series shorter than the window, and says so", () => {
    expect(maxMovingAverage(series([10, 20, 30]))).toEqual({ value: 20, atS: 2, windowS: 10, partial: true });
    expect(maxMovingAverage([])).toEqual({ value: 0, atS: null, windowS: 10, partial: true });
  });

  it("honours another window", () => expect(maxMovingAverage(series([1, 5, 9, 1]), 2)).toMatchObject({ value: 7, atS: 2 }));
  it("refuses a window that is not a positive integer", () => expect(() => maxMovingAverage(series([1]), 0)).toThrow(/windowS/));
});

const step = (scenario: string, offeredRate: number | null, completedShare: number | null, errorRate: number, p99: number, count = 100): StepLike => ({
  scenario,
  offeredRate,
  completedShare,
  errorRate,
  latency: { count, p99 },
});

describe("sustainable rate", () => {
  it("picks the highest step that meets all three criteria and says why the others fail", () => {
    const r = sustainableRate([
      step("step_0", 100, 1, 0, 20),
      step("step_1", 200, 0.99, 0.001, 80),
      step("step_2", 400, 0.9, 0.001, 300),
      step("step_3", 800, 0.5, 0.2, 4000),
    ]);
    expect(r.rate).toBe(200);
    expect(r.scenario).toBe("step_1");
    expect(r.verdicts.map((v) => v.sustainable)).toEqual([true, true, false, false]);
    expect(r.verdicts[2]!.reasons).toEqual(["completed 90% of the offered rate (needs >= 95%)"]);
    expect(r.verdicts[3]!.reasons).toEqual([
      "completed 50% of the offered rate (needs >= 95%)",
      "error rate 20% (needs < 1%)",
      "p99 4000 ms (needs < 1000 ms)",
    ]);
  });

  it("treats the limits as SPEC 5 words them: >= 95% completed, < 1% errors, p99 < 1 s", () => {
    expect(sustainableRate([step("a", 10, 0.95, 0, 999.9)]).rate).toBe(10);
    expect(sustainableRate([step("a", 10, 1, 0.01, 5)]).verdicts[0]!.reasons).toEqual(["error rate 1% (needs < 1%)"]);
    expect(sustainableRate([step("a", 10, 1, 0, 1000)]).verdicts[0]!.reasons).toEqual(["p99 1000 ms (needs < 1000 ms)"]);
  });

  it("lets a higher step pass after a lower one failed (a transient hiccup)", () => {
    expect(sustainableRate([step("step_0", 100, 1, 0.05, 20), step("step_1", 200, 1, 0, 20)]).rate).toBe(200);
  });

  it("gives null when no step is sustainable, or there are no steps", () => {
    expect(sustainableRate([step("step_0", 100, 0.5, 0, 20)])).toMatchObject({ rate: null, scenario: null });
    expect(sustainableRate([])).toEqual({ rate: null, scenario: null, verdicts: [] });
  });

  it("fails a step without answers or without a known offered rate", () => {
    const r = sustainableRate([step("step_0", 100, 0, 1, 0, 0), step("stable", null, null, 0, 10)]);
    expect(r.verdicts[0]!.reasons).toContain("no answered requests, so no p99");
    expect(r.verdicts[1]!.reasons).toEqual(["offered rate unknown"]);
  });

  it("accepts other criteria", () => expect(sustainableRate([step("a", 10, 0.9, 0, 10)], { minCompletedShare: 0.8 }).rate).toBe(10));
});

describe("generator saturation", () => {
  it("flags more than 1% dropped iterations", () => {
    expect(generatorSaturated({ droppedIterations: 1, iterations: 99 })).toEqual({ saturated: false, droppedShare: 0.01, reasons: [] });
    const r = generatorSaturated({ droppedIterations: 2, iterations: 98 });
    expect(r.saturated).toBe(true);
    expect(r.reasons[0]).toMatch(/^2% of iterations were dropped/);
  });

  it("flags a generator CPU above 90%", () => {
    expect(generatorSaturated({ droppedIterations: 0, iterations: 10, generatorCpuShare: 0.95 }).reasons).toEqual(["load generator CPU at 95% (limit 90%)"]);
    expect(generatorSaturated({ droppedIterations: 0, iterations: 10, generatorCpuShare: 0.9 }).saturated).toBe(false);
  });

  it("is not saturated when nothing ran", () => expect(generatorSaturated({ droppedIterations: 0, iterations: 0 }).saturated).toBe(false));
});
