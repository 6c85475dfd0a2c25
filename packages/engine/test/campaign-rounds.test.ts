import { describe, expect, it } from "vitest";
import { interleavedRounds } from "../src/campaign/rounds.ts";

describe("interleaved rounds", () => {
  const targets = ["node-postgres", "restate", "statefun", "pekko"];

  it("runs every target exactly once in every round", () => {
    const rounds = interleavedRounds(targets, 5, 7);
    expect(rounds.map((r) => r.round)).toEqual([1, 2, 3, 4, 5]);
    for (const r of rounds) expect([...r.order].sort()).toEqual([...targets].sort());
  });

  it("gives the same order for the same seed and shuffles between rounds", () => {
    expect(interleavedRounds(targets, 5, 7)).toEqual(interleavedRounds(targets, 5, 7));
    expect(interleavedRounds(targets, 5, 7)).not.toEqual(interleavedRounds(targets, 5, 8));
    const orders = new Set(interleavedRounds(targets, 8, 7).map((r) => r.order.join(",")));
    expect(orders.size).toBeGreaterThan(1);
  });

  it("refuses a target listed twice", () => {
    expect(() => interleavedRounds(["a", "a"], 1, 1)).toThrow(/each target once/);
  });
});
