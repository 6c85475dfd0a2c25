/**
 * Dropped iterations are the generator's fault only when the target answered
 * in time: a slow target holds k6's VUs (its setup requests too) until the
 * pool initialised before the step runs dry, and the iterations dropped while
 * k6 grows it are the target's knee. So is a step the target failed without
 * them: short of the offered rate by more than the drops, or erring.
 */
import { describe, expect, it } from "vitest";
import { cpuBetween, type SamplerResult } from "../src/cost/sampler.ts";
import { cpuOver, generatorShare, maxVus, preVus, targetAnsweredInTime } from "../src/experiment/load-step.ts";
import { stepsThatBoundTheKnee } from "../src/experiment/phases/ramp.ts";

const step = (offeredRate: number, meanIterationS: number | null, p99: number) => ({ offeredRate, meanIterationS, latency: { count: 100, p99 } });

describe("who dropped the iterations", () => {
  it("blames the generator when the target was quick and its iterations short", () => {
    expect(targetAnsweredInTime(step(18, 0.3, 200), 1000)).toBe(true);
  });

  it("blames the target when its measured request was slow", () => {
    expect(targetAnsweredInTime(step(18, 0.3, 1500), 1000)).toBe(false);
    expect(targetAnsweredInTime({ offeredRate: 18, meanIterationS: 0.3, latency: { count: 0, p99: 0 } }, 1000)).toBe(false);
  });

  it("blames the target when its iterations (setup requests included) held most of the VUs initialised before the step, however quick the measured request", () => {
    // 18/s x 2.5 s = 45 VUs initialised; iterations of 2.1 s hold 37.8 of them
    expect(preVus(18)).toBe(45);
    expect(targetAnsweredInTime(step(18, 2.1, 300), 1000)).toBe(false);
    expect(targetAnsweredInTime(step(18, 1.9, 300), 1000)).toBe(true);
    // a target above its knee: 200/s with iterations of 2.5 s needs 500 VUs, as many as were initialised
    expect(preVus(200)).toBe(500);
    expect(targetAnsweredInTime(step(200, 2.5, 352), 1000)).toBe(false);
    // near a knee, 84/s with checkout iterations of 0.35 s (nine requests) holds 30 of the 210
    expect(targetAnsweredInTime(step(84, 0.35, 109), 1000)).toBe(true);
    // the smallest pool is 10 VUs
    expect(preVus(2)).toBe(10);
    // the pool k6 may grow to stays larger: the step is not cut short by the generator's limit
    expect(maxVus(200)).toBeGreaterThan(preVus(200));
  });

  it("blames the target when it fell short of the offered rate by more than the drops explain", () => {
    // node-postgres at 91.7/s, a confirmation step: its queue grew through the step (iterations
    // from 30 ms to 2.2 s), 82.8% served and 2.3% dropped at the end, though the step's mean
    // iteration held fewer VUs than the rule above allows
    const overloaded = { ...step(91.7, 0.9, 381), droppedShare: 0.023, errorRate: 0, window: { completedShare: 0.828 } };
    expect(targetAnsweredInTime(overloaded, 1000)).toBe(false);
    // the same drops in a step that served all the rest: had k6 offered them, it would have passed
    expect(targetAnsweredInTime({ ...overloaded, window: { completedShare: 0.94 } }, 1000)).toBe(true);
    // a step that passed with drops is still the generator's: the drops made it easier
    expect(targetAnsweredInTime({ ...overloaded, window: { completedShare: 1.02 } }, 1000)).toBe(true);
    // without a measured window, the step's own share is judged
    expect(targetAnsweredInTime({ ...step(91.7, 0.9, 381), droppedShare: 0.023, completedShare: 0.828 }, 1000)).toBe(false);
  });

  it("blames the target when its errors alone failed the step", () => {
    expect(targetAnsweredInTime({ ...step(50, 0.3, 200), droppedShare: 0.02, errorRate: 0.05, window: { completedShare: 0.97 } }, 1000)).toBe(false);
    expect(targetAnsweredInTime({ ...step(50, 0.3, 200), droppedShare: 0.02, errorRate: 0.005, window: { completedShare: 0.97 } }, 1000)).toBe(true);
  });

  it("goes by the measured request alone when iteration times are unknown", () => {
    expect(targetAnsweredInTime(step(18, null, 300), 1000)).toBe(true);
  });
});

describe("which steps' generator can make the knee the generator's", () => {
  const at = (...rates: number[]) => rates.map((offeredRate) => ({ step: { offeredRate } }));

  it("every step up to the first unsustainable rate, none above it", () => {
    // statefun, a campaign trial: k6 over 90% CPU at 238/s and 400/s, the knee bracketed at 151..166 by a confirm step
    const steps = at(50, 100, 200, 400, 283, 238, 218, 200, 182, 166, 151, 151);
    expect(stepsThatBoundTheKnee(steps, 166).map((p) => p.step.offeredRate)).toEqual([50, 100, 166, 151, 151]);
  });

  it("the first unsustainable step itself, so a saturated generator there still invalidates the cell", () => {
    expect(stepsThatBoundTheKnee(at(50, 100, 200), 200).map((p) => p.step.offeredRate)).toEqual([50, 100, 200]);
  });

  it("every step when none failed: the top of the ramp is a lower bound the generator may have set", () => {
    expect(stepsThatBoundTheKnee(at(50, 100, 200), null)).toHaveLength(3);
  });
});

describe("the generator's share of its core during a step", () => {
  // k6 at full use for 2 s while it starts its VU pool (t = 0-2 s), then at 50% while the step's requests run (2-12 s)
  const series = [
    { t: 0, cpuSeconds: 0 },
    { t: 2000, cpuSeconds: 2 },
    { t: 7000, cpuSeconds: 4.5 },
    { t: 12000, cpuSeconds: 7 },
    { t: 12500, cpuSeconds: 7 },
  ];
  const usage: SamplerResult = {
    wallSeconds: 12.5,
    samples: series.length,
    series: { generator: series },
    groups: { generator: { cpuSeconds: 7, peakRssBytes: 0, processes: 1, cpuFrom: "process-tree" } },
  };

  it("reads the CPU between samples", () => {
    expect(cpuBetween(series, 1000, 4500)).toBeCloseTo(1 + 1.25, 9);
    expect(cpuBetween(series, -5, 99_999)).toBe(7);
    expect(cpuBetween([], 0, 1)).toBeNaN();
  });

  it("counts only the window of the step's requests, not the start-up of the VU pool", () => {
    expect(generatorShare(usage, { startMs: 2000, endMs: 12000 }, 1)).toBeCloseTo(0.5, 9);
    expect(generatorShare(usage, { startMs: 2000, endMs: 12000 }, 2)).toBeCloseTo(0.25, 9);
  });

  it("falls back to the whole process when the sampler did not see the window", () => {
    expect(generatorShare(usage, { startMs: 2000, endMs: 2500 }, 1)).toBeCloseTo(7 / 12.5, 9);
    expect(generatorShare(usage, { startMs: 2000, endMs: 20_000 }, 1)).toBeCloseTo(7 / 12.5, 9);
    expect(generatorShare({ ...usage, series: {} }, { startMs: 2000, endMs: 12000 }, 1)).toBeCloseTo(7 / 12.5, 9);
  });

  it("reads the target's CPU over the same window: it idles while k6 starts its VUs", () => {
    // the target at 0.8 of a core while the requests run, nearly idle before and after
    const target = [
      { t: 0, cpuSeconds: 0 },
      { t: 2000, cpuSeconds: 0.05 },
      { t: 12000, cpuSeconds: 8.05 },
      { t: 12500, cpuSeconds: 8.06 },
    ];
    const both: SamplerResult = {
      ...usage,
      series: { generator: series, target },
      groups: { ...usage.groups, target: { cpuSeconds: 8.06, peakRssBytes: 0, processes: 3, cpuFrom: "process-tree" } },
    };
    const over = cpuOver(both, "target", { startMs: 2000, endMs: 12000 })!;
    expect(over.seconds).toBe(10);
    expect(over.cpuSeconds / over.seconds).toBeCloseTo(0.8, 9);
    // over the whole phase it would look like 0.64 of a core
    expect(both.groups.target!.cpuSeconds / both.wallSeconds).toBeCloseTo(0.645, 3);
  });

  it("reads no window for a group counted by its own counter, or outside the samples", () => {
    // the sampler keeps no series for a group whose CPU a container's cgroup accounts for
    expect(cpuOver(usage, "target", { startMs: 2000, endMs: 12000 })).toBeUndefined();
    expect(cpuOver(usage, "generator", { startMs: 2000, endMs: 12_600 })).toBeUndefined();
    expect(cpuOver(usage, "generator", { startMs: -1, endMs: 12000 })).toBeUndefined();
    expect(cpuOver(usage, "generator", { startMs: 2000, endMs: 2900 })).toBeUndefined();
  });
});
