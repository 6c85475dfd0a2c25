/**
 * A search step that failed narrowly is run again and the repeat decides: the
 * engine marks the failed step `repeated`, and the board counts the mark only
 * where the step's own numbers show a narrow failure followed by its rate.
 */
import { describe, expect, it } from "vitest";
import { judgeCell, kneeBracket, narrowFailure, replacedByRepeat, type StepResult } from "../src/index.ts";

const step = (offeredRate: number, completedShare: number, p99: number, extra: Partial<StepResult> = {}): StepResult => ({
  scenario: "step_0",
  offeredRate,
  durationS: 6,
  achievedRate: offeredRate * completedShare,
  completedShare,
  errorRate: 0,
  droppedIterations: 0,
  latency: { count: 500, mean: p99 / 4, p50: p99 / 5, p95: p99 / 2, p99, p999: p99, max: p99, min: 1 },
  measuredWindowS: 5,
  peakRate: offeredRate * completedShare,
  ...extra,
});

describe("a narrow failure", () => {
  it("missed only its served share, by at most 10 points, answering fast and without errors", () => {
    // statefun, a campaign trial: 100/s served 93% inside the 5 s window with p99 155 ms, then 91.7/s held twice
    expect(narrowFailure(step(100, 0.93, 155))).toBe(true);
    expect(narrowFailure(step(100, 0.85, 499))).toBe(true);
  });

  it("is not a step that held, fell further short, answered slowly or failed requests", () => {
    expect(narrowFailure(step(100, 0.99, 155))).toBe(false);
    // an overloaded target: its queue shows in the share served and in the latency
    expect(narrowFailure(step(200, 0.56, 570))).toBe(false);
    expect(narrowFailure(step(100, 0.93, 500))).toBe(false);
    expect(narrowFailure(step(100, 0.93, 155, { errorRate: 0.01 }))).toBe(false);
    expect(narrowFailure(step(100, 0.93, 0, { latency: { count: 0, mean: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0, min: 0 } }))).toBe(false);
  });
});

describe("the steps a repeat replaced", () => {
  it("are the marked narrow failures followed by a step at their rate", () => {
    const steps = [step(50, 1, 70), step(100, 0.93, 155, { repeated: true }), step(100, 1, 80), step(200, 0.6, 600)];
    expect(replacedByRepeat(steps)).toEqual([false, true, false, false]);
  });

  it("count no mark the numbers do not bear out: a wide failure, or one not followed by its rate", () => {
    expect(replacedByRepeat([step(200, 0.6, 600, { repeated: true }), step(200, 1, 80)])).toEqual([false, false]);
    expect(replacedByRepeat([step(100, 0.93, 155, { repeated: true }), step(141, 1, 80)])).toEqual([false, false]);
    expect(replacedByRepeat([step(100, 0.93, 155, { repeated: true })])).toEqual([false]);
  });

  it("leave the knee to the repeat's verdict where it matters: a confirmed rate whose search step failed narrowly", () => {
    const s = (offeredRate: number, sustainable: boolean, phase: "coarse" | "fine" | "confirm", replaced = false) => ({
      offeredRate,
      sustainable,
      phase,
      replaced,
    });
    const steps = [
      s(50, true, "coarse"),
      s(100, true, "coarse"),
      s(200, false, "coarse"),
      s(141, false, "fine", true),
      s(141, true, "fine"),
      s(168, false, "fine"),
      s(154, false, "fine"),
      s(141, true, "confirm"),
      s(141, true, "confirm"),
    ];
    expect(kneeBracket(steps)).toMatchObject({ sustainableRate: 141, firstUnsustainableRate: 154 });
    // unreplaced, the narrow failure would leave 141/s unconfirmed, and no other rate was confirmed
    expect(kneeBracket(steps.map((x) => ({ ...x, replaced: false })))).toMatchObject({ sustainableRate: null });
  });
});

describe("a stored cell with a repeated step, judged again", () => {
  const cell = (steps: StepResult[], sustainableRate: number) => ({
    valid: true,
    anomalies: { kinds: {}, total: 0 },
    maxThroughput: {
      maxMovingAvg10s: 150,
      movingAvgPartial: true,
      sustainableRate,
      steps,
      knee: { stoppedBecause: "resolution-reached" as const, firstUnsustainableRate: 154, resolution: 13 / 141, targetResolution: 0.1 },
    },
  });
  const search = (first: StepResult) => [
    { ...step(50, 1, 70), phase: "coarse" as const },
    { ...step(100, 1, 80), phase: "coarse" as const },
    { ...step(200, 0.6, 600), phase: "coarse" as const },
    { ...first, phase: "fine" as const },
    { ...step(141, 1, 120), phase: "fine" as const },
    { ...step(168, 0.7, 450), phase: "fine" as const },
    { ...step(154, 0.8, 400), phase: "fine" as const },
    { ...step(141, 1, 130), phase: "confirm" as const },
    { ...step(141, 0.99, 140), phase: "confirm" as const },
  ];

  it("keeps the knee the repeat allowed", () => {
    const judged = judgeCell(cell(search(step(141, 0.93, 155, { repeated: true })), 141));
    expect(judged).toMatchObject({ valid: true, sustainableRate: 141 });
  });

  it("loses validity when the mark is on a failure that was not narrow", () => {
    const judged = judgeCell(cell(search(step(141, 0.7, 155, { repeated: true })), 141));
    expect(judged.valid).toBe(false);
    expect(judged.invalidReason).toMatch(/claims a sustainable rate of 141\/s, its steps show none/);
  });
});
