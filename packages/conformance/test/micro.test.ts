/**
 * The `micro` group (SPEC 8): its helpers compute what the spec defines, it
 * runs only when asked for, passes a correct target and names each fault.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
  countChecks,
  divideChecksum,
  divideEntities,
  divideExpected,
  divideInput,
  histogramProblems,
  histogramQuantile,
  microPayload,
  microPayloadSha256,
  PINGPONG_BOUNDS_NS,
  runConformance,
} from "../src/index.ts";
import { startMicroTarget, type MicroFault, type MicroTarget } from "./fixtures/micro-target.ts";

let target: MicroTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

describe("micro helpers", () => {
  it("builds the io payload from the alphabet and hashes it", () => {
    expect(microPayload(1)).toBe("a");
    expect(microPayload(28)).toBe("abcdefghijklmnopqrstuvwxyzab");
    expect(microPayload(1_048_576)).toHaveLength(1_048_576);
    expect(microPayloadSha256(1)).toBe(createHash("sha256").update("a").digest("hex"));
    expect(microPayloadSha256(3)).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"); // sha256("abc"), FIPS 180-2
  });

  it("generates the divide input with the spec's generator", () => {
    // x1 = (1103515245 * 0 + 12345) mod 2^31 = 12345; x2 = (1103515245 * 12345 + 12345) mod 2^31 = 1406932606
    expect(divideInput(2, 0)).toEqual([12345, 932606]);
    expect(divideInput(3, 2 ** 31 - 1).every((v) => Number.isInteger(v) && v >= 0 && v < 1_000_000)).toBe(true);
  });

  it("weights the checksum by position, modulo 2^31 - 1", () => {
    expect(divideChecksum([3, 5, 7])).toBe(3 * 1 + 5 * 2 + 7 * 3);
    expect(divideChecksum([2 ** 30, 2 ** 30])).toBe((2 ** 30 + 2 ** 31) % (2 ** 31 - 1));
    expect(divideChecksum([5, 3])).not.toBe(divideChecksum([3, 5]));
  });

  it("counts the entities of the recursion", () => {
    expect(divideEntities(10, 2, 1000)).toBe(1);
    expect(divideEntities(2500, 4, 1000)).toBe(5);
    expect(divideEntities(5000, 2, 100)).toBe(127);
    expect(divideEntities(4000, 16, 16)).toBe(273);
    expect(divideExpected({ items: 1, fanout: 16, leaf: 16, seed: 0 })).toEqual({ items: 1, first: 12345, last: 12345, checksum: 12345, entities: 1 });
  });

  it("has 21 histogram bounds from 1 us to 5 s and checks a histogram", () => {
    expect(PINGPONG_BOUNDS_NS).toHaveLength(21);
    expect(PINGPONG_BOUNDS_NS.slice(0, 4)).toEqual([1000, 2000, 5000, 10_000]);
    expect(PINGPONG_BOUNDS_NS.at(-1)).toBe(5e9);
    const good: Array<[number | null, number]> = [...PINGPONG_BOUNDS_NS.map((le): [number, number] => [le, 0]), [null, 0]];
    good[9]![1] = 3;
    good[10]![1] = 1;
    expect(histogramProblems(good, 4)).toEqual([]);
    expect(histogramQuantile(good, 0.5)).toBe(1e6);
    expect(histogramQuantile(good, 0.99)).toBe(2e6);
    expect(histogramProblems(good, 5)).toEqual([expect.stringMatching(/sum to 4, expected 5/)]);
    expect(histogramProblems(good.slice(1), 4)[0]).toMatch(/bounds must be/);
  });
});

const micro = (url: string) => runConformance(url, { micro: true, only: ["micro"] });

/** For each fault: checks that must fail. */
const CAUGHT_BY: Array<[Exclude<MicroFault, "none">, string[]]> = [
  ["wrong-hash", ["micro.io-1", "micro.io-1048576", "micro.io-overwrite"]],
  ["unsorted", ["micro.divide-fanout-2", "micro.divide-fanout-16", "micro.divide-default-leaf"]],
  ["lost-message", ["micro.pingpong-one-pair", "micro.big-two", "micro.big-many"]],
  ["histogram-bounds", ["micro.pingpong-pairs"]],
  ["blocking-sleep", ["micro.sleep-does-not-block"]],
  ["short-sleep", ["micro.sleep-waits", "micro.sleep-default-and-zero"]],
  ["accept-anything", ["micro.bad-math-n-zero", "micro.bad-divide-fanout-one", "micro.bad-big-entities-one"]],
  ["unnamed-field", ["micro.bad-io-bytes-zero", "micro.bad-pingpong-pairs-missing"]],
  ["bad-pi", ["micro.math-pi"]],
];

describe("the micro group", () => {
  it("is not run unless the target declares micro", () => {
    expect(countChecks({ micro: true }) - countChecks()).toBe(countChecks({ micro: true, only: ["micro"] }));
    expect(countChecks({ only: ["micro"] })).toBe(0);
  });

  it("passes every micro check against a correct target", { timeout: 60_000 }, async () => {
    target = await startMicroTarget();
    const report = await micro(target.url);
    expect(report.checks.filter((c) => !c.passed).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(report.passed).toBeGreaterThan(40);
  });

  it.each(CAUGHT_BY)("catches a target with fault %s by name", { timeout: 60_000 }, async (fault, expected) => {
    target = await startMicroTarget(fault);
    const report = await micro(target.url);
    expect(report.checks.filter((c) => !c.passed).map((c) => c.id)).toEqual(expect.arrayContaining(expected));
  });
});
