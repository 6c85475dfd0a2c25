/**
 * Which population the board opens on and what a request names: knees are
 * ranked only against knees of the same environment kind, profile and machine
 * class; a median of fewer than three trials is never ranked.
 */
import { describe, expect, it } from "vitest";
import { choosePopulation, type Population } from "../src/server/queries/populations.ts";
import { provisional, trialFigure } from "../src/shared/trial-figures.ts";

const AMD = "2 cores, AMD EPYC 9B14, 24 GiB";
const INTEL = "2 cores, Intel Xeon Processor, 24 GiB";
const at = (d: number) => new Date(Date.UTC(2026, 11, d));
const populations: Population[] = [
  { kind: "local", profile: "standard", machineClass: INTEL, systems: 3, latest: at(1) },
  { kind: "local", profile: "standard", machineClass: AMD, systems: 5, latest: at(2) },
  { kind: "local", profile: "thesis", machineClass: AMD, systems: 5, latest: at(3) },
  { kind: "kubernetes", profile: "standard", machineClass: null, systems: 9, latest: at(4) },
];

describe("the board's population", () => {
  it("opens on the local population with the most ranked systems, the standard profile first among equals", () => {
    expect(choosePopulation(populations, {})).toEqual({ kind: "local", profile: "standard", machineClass: AMD });
  });

  it("opens on the operator's reference machine when it has ranked runs, and ignores one that has none", () => {
    expect(choosePopulation(populations, {}, INTEL)).toEqual({ kind: "local", profile: "standard", machineClass: INTEL });
    expect(choosePopulation(populations, {}, "8 cores, nowhere")).toEqual({ kind: "local", profile: "standard", machineClass: AMD });
  });

  it("keeps what the request names and fills the rest from the best population that agrees with it", () => {
    expect(choosePopulation(populations, { profile: "thesis" })).toEqual({ kind: "local", profile: "thesis", machineClass: AMD });
    expect(choosePopulation(populations, { kind: "kubernetes" })).toEqual({ kind: "kubernetes", profile: "standard", machineClass: null });
    expect(choosePopulation(populations, { machine: "unrecorded" })).toEqual({ kind: "kubernetes", profile: "standard", machineClass: null });
  });

  it("shows the population a request named even when nothing ranked is in it: an empty board, never a mixed one", () => {
    expect(choosePopulation(populations, { machine: INTEL, profile: "quick" })).toEqual({ kind: "local", profile: "quick", machineClass: INTEL });
    expect(choosePopulation([], {})).toEqual({ kind: "local", profile: "standard", machineClass: null });
  });
});

describe("ranked medians", () => {
  const trials = (...rates: number[]) => rates.map((rate, round) => ({ round, rate }));
  it("need three counted trials: one run and two trials are provisional", () => {
    expect(provisional(trialFigure(trials(100)))).toBe(true);
    const two = trialFigure(trials(100, 104))!;
    expect(two.interval).not.toBeNull();
    expect(provisional(two)).toBe(true);
    expect(provisional(trialFigure(trials(100, 104, 98)))).toBe(false);
    // a trial whose cell was not ranked is not counted
    expect(provisional(trialFigure([...trials(100, 104), { round: 2, rate: null }]))).toBe(true);
  });
});
