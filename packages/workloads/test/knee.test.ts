import { describe, expect, it } from "vitest";
import { findKnee, type KneePlan } from "../src/experiment/knee.ts";

const plan: KneePlan = { startRate: 10, maxRate: 10_000, factor: 2, maxCoarseSteps: 10, fineSteps: 3 };
/** A simulated target that sustains up to `capacity` per second. */
const target = (capacity: number) => {
  const offered: number[] = [];
  const run = async (rate: number) => {
    offered.push(rate);
    return { rate, sustainable: rate <= capacity };
  };
  return { offered, run };
};

describe("knee search", () => {
  it("doubles until a step fails, then refines between the last good and the first bad rate", async () => {
    const t = target(100);
    const r = await findKnee(plan, t.run);
    expect(t.offered).toEqual([10, 20, 40, 80, 160, 100, 120]);
    expect(r.sustainableRate).toBe(100);
    expect(r.stoppedBecause).toBe("unsustainable-step-found");
  });

  it("says when even the first step is not sustainable and refines below it", async () => {
    const t = target(4);
    const r = await findKnee(plan, t.run);
    expect(t.offered).toEqual([10, 3, 5]);
    expect(r.sustainableRate).toBe(3);
    expect(r.stoppedBecause).toBe("first-step-unsustainable");
  });

  it("stops at the maximum rate when the target keeps up", async () => {
    const t = target(1e9);
    const r = await findKnee({ ...plan, maxRate: 50 }, t.run);
    expect(t.offered).toEqual([10, 20, 40, 50]);
    expect(r).toMatchObject({ sustainableRate: 50, stoppedBecause: "max-rate-reached" });
  });

  it("stops after the allowed number of coarse steps", async () => {
    const t = target(1e9);
    const r = await findKnee({ ...plan, maxCoarseSteps: 3 }, t.run);
    expect(t.offered).toEqual([10, 20, 40]);
    expect(r).toMatchObject({ sustainableRate: 40, stoppedBecause: "max-steps-reached" });
  });
});
