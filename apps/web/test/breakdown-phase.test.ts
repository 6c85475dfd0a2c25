import { describe, expect, it } from "vitest";
import type { Cell } from "@sfbench/core";
import { breakdownPhaseText } from "../src/charts/data/run.ts";

const traced = {
  offeredRate: 160,
  durationS: 10,
  achievedRate: 160,
  errorRate: 0,
  latency: { count: 1600, mean: 12, p50: 10, p90: 20, p99: 40, max: 90 },
  overhead: { p50: 1.25, p99: 1.5 },
} as unknown as NonNullable<Cell["traced"]>;

describe("where a run page's breakdown comes from", () => {
  it("says what tracing cost in latency and, where the target was sampled, in CPU per request", () => {
    expect(breakdownPhaseText({ traced })).toBe("from a traced phase of 10 s at the stable rate (160/s): p50 1.25x, p99 1.50x the untraced stable phase's");
    expect(breakdownPhaseText({ traced: { ...traced, cost: { targetCores: 0.912, coreSecondsPer1000: 5.7, vsStable: 1.08 } } })).toBe(
      "from a traced phase of 10 s at the stable rate (160/s): p50 1.25x, p99 1.50x the untraced stable phase's; CPU per request 1.08x the stable phase's (the target used 0.91 cores)",
    );
  });

  it("names the stable phase for a breakdown stored before the traced phase existed, and nothing without one", () => {
    expect(breakdownPhaseText({ breakdown: { overall: {} } as unknown as Cell["breakdown"] })).toMatch(/^from the stable phase, traced/);
    expect(breakdownPhaseText({})).toBeNull();
  });
});
