import { describe, expect, it } from "vitest";
import { confirmKnee, findKnee, kneeResolution, roundRate, stepDownRate, type KneePlan } from "../src/experiment/knee.ts";
import { confirmPlan, PROFILE_SETTINGS } from "../src/experiment/profiles.ts";
import { searchStep } from "../src/experiment/phases/ramp.ts";
import { publishableResolution } from "@sfbench/core";

const plan: KneePlan = { startRate: 10, maxRate: 10_000, factor: 2, maxCoarseSteps: 10, fineSteps: 5, resolution: 0.1 };
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
  it("doubles until a step fails, then bisects (geometrically) until the knee is known to 10%", async () => {
    const t = target(100);
    const r = await findKnee(plan, t.run);
    // 80 good, 160 bad -> 113 bad -> 95.1 good (tenths below 100/s) -> 104 bad: (104 - 95.1) / 95.1 = 9.4%
    expect(t.offered).toEqual([10, 20, 40, 80, 160, 113, 95.1, 104]);
    expect(r).toMatchObject({ sustainableRate: 95.1, firstUnsustainableRate: 104, stoppedBecause: "resolution-reached" });
    expect(r.resolution).toBeCloseTo(8.9 / 95.1, 6);
    expect(r.resolution).toBeLessThanOrEqual(0.1);
  });

  it("reaches the target resolution for any capacity, the sustainable rate never above the capacity", async () => {
    for (const capacity of [7, 33, 100, 149, 777, 2500, 4999]) {
      const t = target(capacity);
      const r = await findKnee({ ...plan, minRate: 1 }, t.run);
      expect(r.stoppedBecause, `capacity ${capacity}`).toMatch(/resolution-reached|rate-granularity/);
      expect(r.sustainableRate!).toBeLessThanOrEqual(capacity);
      expect(r.firstUnsustainableRate!).toBeGreaterThan(capacity);
      if (r.stoppedBecause === "resolution-reached") expect(r.resolution!).toBeLessThanOrEqual(0.1);
      // the bracket's gap, not the distance to the true capacity, is what is promised
      expect((capacity - r.sustainableRate!) / r.sustainableRate!).toBeLessThanOrEqual(r.resolution!);
    }
  });

  it("steps down when even the first step is not sustainable, then bisects in tenths of a rate below 100/s", async () => {
    const t = target(4);
    const r = await findKnee({ ...plan, minRate: 1 }, t.run);
    expect(t.offered.slice(0, 3)).toEqual([10, 5, 3]);
    // 3 good, 5 bad -> 3.9 good -> 4.4 bad -> 4.1 bad: (4.1 - 3.9) / 3.9 = 5.1%, where whole rates would have stopped at 4..5 (25%)
    expect(t.offered).toEqual([10, 5, 3, 3.9, 4.4, 4.1]);
    expect(r).toMatchObject({ sustainableRate: 3.9, firstUnsustainableRate: 4.1, stoppedBecause: "resolution-reached" });
    expect(r.resolution).toBeCloseTo(0.2 / 3.9, 6);
  });

  it("rounds rates to tenths below 100/s and to whole rates above", () => {
    expect(roundRate(7.071)).toBe(7.1);
    expect(roundRate(99.94)).toBe(99.9);
    expect(roundRate(141.42)).toBe(141);
  });

  it("stops on rate granularity when no tenth is left between the bracket's ends", async () => {
    const t = target(7.05);
    const r = await findKnee({ ...plan, startRate: 7, fineSteps: 10, resolution: 0.01 }, t.run);
    expect(r.sustainableRate).toBe(7);
    expect(r.firstUnsustainableRate).toBe(7.1);
    expect(r.stoppedBecause).toBe("rate-granularity");
  });

  it("says when even the lowest rate is not sustainable", async () => {
    const t = target(0);
    const r = await findKnee({ ...plan, minRate: 2 }, t.run);
    expect(t.offered).toEqual([10, 5, 3, 2]);
    expect(r).toMatchObject({ sustainableRate: null, resolution: null, stoppedBecause: "min-rate-unsustainable" });
  });

  it("stops at the maximum rate when the target keeps up: a lower bound, no resolution", async () => {
    const t = target(1e9);
    const r = await findKnee({ ...plan, maxRate: 50 }, t.run);
    expect(t.offered).toEqual([10, 20, 40, 50]);
    expect(r).toMatchObject({ sustainableRate: 50, firstUnsustainableRate: null, resolution: null, stoppedBecause: "max-rate-reached" });
  });

  it("stops after the allowed number of coarse steps", async () => {
    const t = target(1e9);
    const r = await findKnee({ ...plan, maxCoarseSteps: 3 }, t.run);
    expect(t.offered).toEqual([10, 20, 40]);
    expect(r).toMatchObject({ sustainableRate: 40, resolution: null, stoppedBecause: "max-steps-reached" });
  });

  it("without fine steps reports the coarse bracket as it is (a smoke test)", async () => {
    const t = target(100);
    const r = await findKnee({ ...plan, factor: 3, fineSteps: 0 }, t.run);
    expect(t.offered).toEqual([10, 30, 90, 270]);
    expect(r).toMatchObject({ sustainableRate: 90, firstUnsustainableRate: 270, resolution: 2, stoppedBecause: "fine-steps-exhausted" });
  });

  it("the resolution is the relative gap between the last sustainable and the first unsustainable rate", () => {
    expect(kneeResolution(100, 110)).toBeCloseTo(0.1, 9);
    expect(kneeResolution(null, 110)).toBeNull();
    expect(kneeResolution(100, null)).toBeNull();
  });

  it("the publishable profiles bisect to 10% or better; quick does not promise a resolution", async () => {
    expect(PROFILE_SETTINGS.quick.knee.fineSteps).toBe(0);
    for (const p of ["standard", "thesis"] as const) {
      const k = PROFILE_SETTINGS[p].knee;
      expect(k.resolution!).toBeLessThanOrEqual(0.1);
      // enough bisection steps for the coarse bracket: factor^(1/2^n) - 1 <= resolution
      expect(Math.pow(k.factor, 1 / 2 ** k.fineSteps) - 1).toBeLessThanOrEqual(k.resolution!);
      const r = await findKnee(k, target(Math.round(k.startRate * 7.3)).run);
      expect(r.stoppedBecause).toBe("resolution-reached");
    }
  });
});

describe("a failed confirmation's step down", () => {
  it("lands at most the resolution below the candidate, so the bracket it leaves is still ranked", () => {
    // the demo's node-postgres: 90.9/s failed its confirmation; 82.6/s would be 10.05% below
    expect(stepDownRate(90.9, 0.1)).toBe(82.7);
    expect(stepDownRate(91.7, 0.1)).toBe(83.4);
    expect(stepDownRate(330, 0.1)).toBe(300);
    expect(stepDownRate(1000, 0.1)).toBe(910);
    // below 1/s a tenth is more than 10%: no step down is possible, and the ramp stops confirming
    expect(stepDownRate(0.5, 0.1)).toBe(0.5);
    for (const candidate of [1.1, 3.3, 7.1, 25, 82.6, 99.9, 109, 110, 141, 999, 2345]) {
      const lower = stepDownRate(candidate, 0.1);
      expect(lower, `${candidate}/s`).toBeLessThan(candidate);
      expect(publishableResolution(kneeResolution(lower, candidate)!), `${candidate}/s steps down to ${lower}/s`).toBe(true);
      expect(roundRate(lower), "an offerable rate").toBe(lower);
    }
  });
});

describe("the confirmation of the search's candidate", () => {
  /** a target whose longer steps hold up to `capacity`; remembers every rate it was asked to hold */
  const longer = (capacity: number) => {
    const asked: number[] = [];
    const holds = async (rate: number) => {
      asked.push(rate);
      return rate <= capacity;
    };
    return { asked, holds };
  };
  // a plan of 10% and three steps down (the standard profile's until 2026-11-28): the rates below are worked out for it
  const tenPercent = { resolution: 0.1, stepsDown: 3, minRate: 1 };

  it("confirms the candidate when it holds, with nothing else run", async () => {
    const t = longer(200);
    expect(await confirmKnee(168, tenPercent, t.holds)).toEqual({ confirmedRate: 168, stepsDown: 0 });
    expect(t.asked).toEqual([168]);
  });

  it("reaches a knee far below the candidate by growing drops, then bisects back up to the resolution", async () => {
    // node-postgres, a campaign trial: 6 s steps held 168/s, its 10 s steps about 110/s; drops of
    // one resolution each (168, 153, 140, 128) ran out before they got there
    const t = longer(110);
    const c = await confirmKnee(168, tenPercent, t.holds);
    expect(t.asked).toEqual([168, 153, 127, 86.8, 105, 115]);
    expect(c).toEqual({ confirmedRate: 105, stepsDown: 3 });
  });

  it("for any knee within its reach, leaves a bracket of at most the resolution around it", async () => {
    // three drops from 168/s reach 86.8/s
    for (let capacity = 86.8; capacity <= 168; capacity += 1.3) {
      const t = longer(capacity);
      const { confirmedRate } = await confirmKnee(168, tenPercent, t.holds);
      expect(confirmedRate, `${capacity}/s`).not.toBeNull();
      expect(confirmedRate!, `${capacity}/s`).toBeLessThanOrEqual(capacity);
      const failed = t.asked.filter((r) => r > confirmedRate!);
      if (failed.length) expect(publishableResolution(kneeResolution(confirmedRate!, Math.min(...failed))!), `${capacity}/s`).toBe(true);
    }
  });

  it("confirms nothing below its reach, nor below the lowest rate allowed", async () => {
    // three drops reach 1.1 x 1.21 x 1.46, about half the candidate
    expect(await confirmKnee(168, tenPercent, longer(80).holds)).toEqual({ confirmedRate: null, stepsDown: 3 });
    const t = longer(0);
    expect(await confirmKnee(3, { ...tenPercent, minRate: 2 }, t.holds)).toEqual({ confirmedRate: null, stepsDown: 2 });
    expect(t.asked).toEqual([3, 2.8, 2.4]);
  });
});

describe("a search step that failed narrowly", () => {
  /** a step run that answers with the verdicts given, in order, and counts its runs */
  const verdicts = (...vs: Array<"held" | "narrow" | "failed">) => {
    let runs = 0;
    const run = async () => {
      const v = vs[runs++]!;
      return { sustainable: v === "held", narrow: v === "narrow" };
    };
    return { run, runs: () => runs };
  };
  const never = () => {
    throw new Error("no repeat expected");
  };

  it("is run again at once, and the repeat decides", async () => {
    let told = 0;
    const held = verdicts("narrow", "held");
    expect(await searchStep(held.run, true, () => told++)).toBe(true);
    const failed = verdicts("narrow", "narrow");
    expect(await searchStep(failed.run, true, () => told++)).toBe(false);
    expect([held.runs(), failed.runs(), told]).toEqual([2, 2, 2]);
  });

  it("is not repeated when the profile says not, and no other verdict is", async () => {
    for (const [v, repeat, expected] of [
      ["narrow", false, false],
      ["failed", true, false],
      ["held", true, true],
    ] as const) {
      const t = verdicts(v);
      expect(await searchStep(t.run, repeat, never)).toBe(expected);
      expect(t.runs()).toBe(1);
    }
  });

  it("no longer sets the knee: the search goes on past a rate that failed narrowly once", async () => {
    // statefun, a campaign trial: 100/s served 93% of its rate (p99 155 ms), the search bisected below it
    // and the trial's knee was 91.7/s; the others of its campaign held 129-182/s
    const plan = PROFILE_SETTINGS.standard.knee;
    const capacity = 150;
    let first100 = true;
    const runStep = async (rate: number) => {
      const v = await searchStep(
        async () => {
          if (rate === 100 && first100) {
            first100 = false;
            return { sustainable: false, narrow: true };
          }
          return { sustainable: rate <= capacity, narrow: false };
        },
        true,
        () => {},
      );
      return { rate, sustainable: v };
    };
    const k = await findKnee(plan, runStep);
    expect(k.sustainableRate).toBeGreaterThan(140);
    expect(k.firstUnsustainableRate).toBeGreaterThan(capacity);
  });
});

describe("the standard profile's knee", () => {
  const { knee } = PROFILE_SETTINGS.standard;
  /** the search with short steps holding up to `short`, then the confirmation with longer steps holding up to `long` */
  const knownKnee = async (short: number, long: number) => {
    const search = await findKnee(knee, async (rate) => ({ rate, sustainable: rate <= short }));
    const asked: number[] = [];
    const c = await confirmKnee(search.sustainableRate!, confirmPlan(PROFILE_SETTINGS.standard), async (rate) => {
      asked.push(rate);
      return rate <= long;
    });
    const failed = asked.filter((r) => r > (c.confirmedRate ?? Infinity));
    return { search, confirmed: c.confirmedRate, bracket: failed.length ? kneeResolution(c.confirmedRate!, Math.min(...failed)) : null };
  };

  it("is searched to 5% within its fine steps, for any knee its coarse steps bracket", async () => {
    for (let capacity = 51; capacity <= 3000; capacity *= 1.07) {
      const { search } = await knownKnee(capacity, capacity);
      expect(search.stoppedBecause, `${capacity}/s`).toBe("resolution-reached");
      expect(search.resolution!, `${capacity}/s`).toBeLessThanOrEqual(0.05);
    }
  });

  it("is confirmed to 5% when longer steps hold up to half what the short ones did", async () => {
    for (const short of [95, 150, 420]) {
      for (let share = 0.52; share <= 1; share += 0.03) {
        const { confirmed, bracket } = await knownKnee(short, short * share);
        expect(confirmed, `${short}/s x ${share}`).not.toBeNull();
        expect(confirmed!, `${short}/s x ${share}`).toBeLessThanOrEqual(short * share);
        if (bracket !== null) expect(bracket, `${short}/s x ${share}`).toBeLessThanOrEqual(0.05);
      }
    }
  });

  it("lies on a grid no coarser than 5%: the knees a target near 100/s can get are that close together", async () => {
    // node-postgres' trials at 10% confirmed 84-91.7, 98-100, 107-109 or 119-129/s and nothing between
    const knees = new Set<number>();
    for (let long = 80; long <= 130; long += 0.5) knees.add((await knownKnee(135, long)).confirmed!);
    const sorted = [...knees].sort((a, b) => a - b);
    expect([sorted[0]! <= 82, sorted.at(-1)! >= 125]).toEqual([true, true]);
    const gaps = sorted.slice(1).map((r, i) => r / sorted[i]! - 1);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(0.05);
  });
});
