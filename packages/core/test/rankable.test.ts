import { describe, expect, it } from "vitest";
import { KNEE_STOP_TEXT, KNEE_STOPS, MaxThroughput, PUBLISHABLE_RESOLUTION, rankable, type Cell } from "../src/index.ts";

const stats = { count: 10, mean: 5, p50: 4, p95: 9, p99: 10, p999: 10, max: 10, min: 1 };
const step = (offeredRate: number, ok: boolean) => ({
  scenario: "step_0",
  offeredRate,
  durationS: 6,
  achievedRate: offeredRate * (ok ? 1 : 0.8),
  completedShare: ok ? 1 : 0.8,
  errorRate: 0,
  droppedIterations: 0,
  latency: stats,
  measuredWindowS: 5,
  peakRate: offeredRate * (ok ? 1 : 0.8),
  ...(ok ? {} : { failedBecause: ["completed 80% of the offered rate within the step (needs >= 95%)"] }),
});
const audited = { kinds: { "stock-drift": 0 }, total: 0 };
const cell = (
  knee: MaxThroughput["knee"] | undefined,
  valid = true,
  anomalies: Cell["anomalies"] = audited,
): Pick<Cell, "valid" | "maxThroughput" | "anomalies"> => ({
  valid,
  anomalies,
  maxThroughput: MaxThroughput.parse({ maxMovingAvg10s: 200, sustainableRate: 190, steps: [step(190, true), step(205, false)], ...(knee ? { knee } : {}) }),
});

describe("which sustainable rates the leaderboard ranks", () => {
  it("ranks a valid cell whose knee is bracketed to 10% or better", () => {
    const r = rankable(cell({ stoppedBecause: "resolution-reached", firstUnsustainableRate: 205, resolution: 15 / 190, targetResolution: 0.1 }));
    expect(r).toEqual({ ok: true, resolution: 15 / 190 });
  });

  it("keeps a coarse knee (the quick profile's x3 steps) on the run page as a smoke test", () => {
    const r = rankable(cell({ stoppedBecause: "fine-steps-exhausted", firstUnsustainableRate: 360, resolution: 2, targetResolution: null }));
    expect(r).toEqual({
      ok: false,
      because: "knee",
      reason: `the knee is known only to 200% (ranked: 10% or better); ${KNEE_STOP_TEXT["fine-steps-exhausted"]}`,
    });
  });

  it("says a knee just outside the ranked resolution to a tenth of a percent, not rounded into it", () => {
    const r = rankable(cell({ stoppedBecause: "confirmation-failed", firstUnsustainableRate: 100, resolution: 0.104, targetResolution: 0.1 }));
    expect(r).toMatchObject({ ok: false, because: "knee", reason: expect.stringMatching(/^the knee is known only to 10\.4% \(ranked: 10% or better\)/) });
  });

  it("does not rank a lower bound, an invalid cell, or a document written before the search bisected", () => {
    expect(rankable(cell({ stoppedBecause: "max-rate-reached", firstUnsustainableRate: null, resolution: null, targetResolution: 0.1 }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("lower bound"),
    });
    expect(rankable(cell({ stoppedBecause: "resolution-reached", firstUnsustainableRate: 205, resolution: 0.05, targetResolution: 0.1 }, false))).toMatchObject(
      { ok: false },
    );
    expect(rankable(cell(undefined))).toMatchObject({ ok: false, reason: expect.stringContaining("resolution is unknown") });
  });

  it("does not rank a cell whose audit found an anomaly, or that was never audited, however precise its knee", () => {
    const knee = { stoppedBecause: "resolution-reached", firstUnsustainableRate: 205, resolution: 15 / 190, targetResolution: 0.1 } as const;
    expect(rankable(cell(knee, true, { kinds: { "stock-drift": 1, "credit-drift": 0 }, total: 1 }))).toEqual({
      ok: false,
      because: "audit",
      reason: "the audit found 1 anomaly (stock-drift 1)",
    });
    const { anomalies: _, ...unaudited } = cell(knee);
    expect(rankable(unaudited)).toMatchObject({ ok: false, because: "audit", reason: expect.stringContaining("no audit") });
  });

  it("has a sentence for every reason the knee search can stop", () => {
    for (const stop of KNEE_STOPS) expect(KNEE_STOP_TEXT[stop].length).toBeGreaterThan(10);
    expect(PUBLISHABLE_RESOLUTION).toBe(0.1);
  });
});

describe("the knee a confirmed search's steps show", () => {
  const s = (offeredRate: number, sustainable: boolean, phase?: "warmup" | "coarse" | "fine" | "confirm") => ({ offeredRate, sustainable, phase });

  it("is the highest rate whose repeats all held, not the search's candidate that failed its repeat", async () => {
    const { kneeBracket } = await import("../src/index.ts");
    const steps = [
      s(25, false, "warmup"),
      s(50, true, "coarse"),
      s(100, true, "coarse"),
      s(200, false, "coarse"),
      s(141, false, "fine"),
      s(119, true, "fine"),
      s(130, false, "fine"),
      s(119, true, "confirm"),
      s(119, false, "confirm"),
      s(108, true, "confirm"),
      s(108, true, "confirm"),
    ];
    expect(kneeBracket(steps)).toEqual({ sustainableRate: 108, firstUnsustainableRate: 119, resolution: expect.closeTo(11 / 108, 6) });
  });

  it("ignores the warm-up, and without confirm steps is the highest sustainable step as before", async () => {
    const { kneeBracket } = await import("../src/index.ts");
    expect(kneeBracket([s(500, true, "warmup"), s(50, true), s(100, false)])).toEqual({ sustainableRate: 50, firstUnsustainableRate: 100, resolution: 1 });
  });
});
