/** The demo's time accounting (scripts/lib/demo-timing.ts): time charged to what each trial was doing, milestones, the table. */
import { describe, expect, it } from "vitest";
import { campaignTiming, observe, timingTable, type TrialClock } from "../../../scripts/lib/demo-timing.ts";

const MIN = 60_000;

/** Replays one trial's samples: [minute, status, activity]. */
function trial(system: string, round: number, samples: Array<[number, string, string | null]>): TrialClock {
  const c: TrialClock = { runId: `${system}-${round}`, system, round, status: "queued", spent: {} };
  let last: ReturnType<typeof observe> | undefined;
  for (const [m, status, activity] of samples) last = observe(c, { status, activity }, m * MIN, last);
  return c;
}

describe("demo timing", () => {
  it("charges the time between samples to the activity seen at the first of them", () => {
    const c = trial("a", 1, [
      [0, "queued", null],
      [1, "running", "provision"],
      [2, "running", "seed"],
      [4, "running", "populate"],
      [9, "running", "ramp"],
      [12, "completed", null],
    ]);
    expect(c.spent).toEqual({ provision: 1 * MIN, seed: 2 * MIN, populate: 5 * MIN, ramp: 3 * MIN });
    expect(c.startedMs).toBe(1 * MIN);
    expect(c.endedMs).toBe(12 * MIN);
  });

  it("gives the first provisional row, each system's ranked time and the median trial", () => {
    const clocks = [
      trial("fast", 1, [
        [0, "running", "ramp"],
        [2, "completed", null],
      ]),
      trial("slow", 1, [
        [2, "running", "populate"],
        [10, "completed", null],
      ]),
      trial("fast", 2, [
        [10, "running", "ramp"],
        [13, "completed", null],
      ]),
      trial("slow", 2, [
        [13, "running", "populate"],
        [20, "failed", null],
      ]),
    ];
    const t = campaignTiming(0, clocks);
    expect(t.provisionalAfterMin).toBe(2);
    expect(t.rankedAfterMin).toEqual({ fast: 13, slow: 20 });
    expect(t.allAfterMin).toBe(20);
    expect(t.systems).toEqual([
      { system: "fast", trials: 2, completed: 2, medianTrialMin: 2.5, spentMin: { ramp: 5 } },
      { system: "slow", trials: 2, completed: 1, medianTrialMin: 7.5, spentMin: { populate: 15 } },
    ]);
    const table = timingTable(t);
    expect(table).toContain("first provisional row on the board: 2 min after the portal came up");
    expect(table).toMatch(/\nslow\s+2\s+1\s+7\.5 min\s+20 min {2}populate 15$/);
  });

  it("says so while trials are still open or none completed", () => {
    const t = campaignTiming(0, [trial("a", 1, [[0, "running", "ramp"]])]);
    expect(t.provisionalAfterMin).toBeNull();
    expect(t.allAfterMin).toBeNull();
    expect(t.rankedAfterMin).toEqual({ a: null });
    expect(timingTable(t)).toContain("none (no trial completed)");
  });
});
