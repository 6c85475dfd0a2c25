import { describe, expect, it } from "vitest";
import { cellStatistics, cellTieGroups, type TrialFigures } from "../src/index.ts";

const cells = [{ workload: "checkout", distribution: "uniform" }] as const;
const trial = (target: string, round: number, knee: number | null, busy = false): TrialFigures => ({
  target,
  round,
  busy,
  knees: knee === null ? {} : { "checkout/uniform": knee },
});

describe("a campaign's statistics", () => {
  it("summarizes the target's CPU at its knee over the trials that have a knee, and says nothing where none recorded it", () => {
    const withShare = (t: TrialFigures, share: number): TrialFigures => ({ ...t, kneeCoreShares: { "checkout/uniform": share } });
    const trials = [
      withShare(trial("a", 1, 50), 0.9),
      withShare(trial("a", 2, 55), 0.96),
      withShare(trial("a", 3, 48), 0.7),
      // an invalid cell's share is no figure at its knee
      withShare(trial("a", 4, null), 0.2),
      trial("old", 1, 40),
    ];
    const stats = cellStatistics({ targets: ["a", "old"], cells: [...cells], trials });
    expect(stats.find((s) => s.target === "a")!.kneeCoreShare).toEqual({ n: 3, median: 0.9, min: 0.7, max: 0.96 });
    expect(stats.find((s) => s.target === "old")!.kneeCoreShare).toBeUndefined();
  });

  it("summarizes each target's counted trials and pairs them with the reference by round", () => {
    const trials = [
      trial("ref", 1, 100),
      trial("fast", 1, 200),
      trial("ref", 2, 110),
      trial("fast", 2, 230, true),
      trial("ref", 3, 90),
      trial("fast", 3, null),
    ];
    const stats = cellStatistics({ targets: ["ref", "fast"], cells: [...cells], trials, reference: "ref" });
    const ref = stats.find((s) => s.target === "ref")!;
    expect(ref).toMatchObject({ values: [100, 110, 90], n: 3, invalid: 0, busy: 0, median: 100, min: 90, max: 110, unit: "checkouts/s" });
    expect(ref.ratioToReference).toBeUndefined();
    const fast = stats.find((s) => s.target === "fast")!;
    expect(fast).toMatchObject({ values: [200, 230, null], n: 2, invalid: 1, busy: 1, median: 215 });
    // rounds 1 and 2: ratios 2 and 230/110, geometric mean sqrt(2 * 2.0909)
    expect(fast.ratioToReference!.n).toBe(2);
    expect(fast.ratioToReference!.ratio).toBeCloseTo(Math.sqrt(2 * (230 / 110)), 10);
    expect(fast.ratioToReference!.interval!.low).toBeLessThan(2);
  });

  it("ties targets whose intervals overlap and leaves out a target without values", () => {
    const trials = [trial("a", 1, 100), trial("a", 2, 104), trial("b", 1, 102), trial("b", 2, 98), trial("c", 1, 300), trial("c", 2, 310), trial("d", 1, null)];
    const stats = cellStatistics({ targets: ["a", "b", "c", "d"], cells: [...cells], trials });
    expect(stats.find((s) => s.target === "d")).toMatchObject({ n: 0, invalid: 1, median: null, interval: null });
    expect(cellTieGroups([...cells], stats)).toEqual([{ workload: "checkout", distribution: "uniform", groups: [["c"], ["a", "b"]] }]);
  });
});
