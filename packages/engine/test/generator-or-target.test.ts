/**
 * Dropped iterations are the generator's fault only when the target answered
 * in time: a slow target holds k6's VUs (its setup requests too) until the
 * pool runs dry, and that is the target's knee.
 */
import { describe, expect, it } from "vitest";
import { maxVus, targetAnsweredInTime } from "../src/experiment/load-step.ts";

const step = (offeredRate: number, meanIterationS: number | null, p99: number) => ({ offeredRate, meanIterationS, latency: { count: 100, p99 } });

describe("who dropped the iterations", () => {
  it("blames the generator when the target was quick and its iterations short", () => {
    expect(targetAnsweredInTime(step(18, 0.3, 200), 1000)).toBe(true);
  });

  it("blames the target when its measured request was slow", () => {
    expect(targetAnsweredInTime(step(18, 0.3, 1500), 1000)).toBe(false);
    expect(targetAnsweredInTime({ offeredRate: 18, meanIterationS: 0.3, latency: { count: 0, p99: 0 } }, 1000)).toBe(false);
  });

  it("blames the target when its iterations (setup requests included) held most of the VU pool, however quick the measured request", () => {
    // 18/s x 5 s = 90 VUs held of a pool of 100
    expect(maxVus(18)).toBe(100);
    expect(targetAnsweredInTime(step(18, 5, 300), 1000)).toBe(false);
    expect(targetAnsweredInTime(step(18, 4, 300), 1000)).toBe(true);
  });

  it("goes by the measured request alone when iteration times are unknown", () => {
    expect(targetAnsweredInTime(step(18, null, 300), 1000)).toBe(true);
  });
});
