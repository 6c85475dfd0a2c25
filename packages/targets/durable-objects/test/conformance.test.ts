import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatFailure, runConformance } from "@sfbench/conformance";
import { start, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;

beforeAll(async () => {
  t = await start(18710);
});
afterAll(async () => {
  await t?.stop();
});

describe("the conformance suite (sfbench verify)", () => {
  it("passes every check", { timeout: 300_000 }, async () => {
    const report = await runConformance(t.url);
    const failures = report.checks.filter((c) => !c.passed).map(formatFailure);
    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(report.failed).toBe(0);
    expect(report.passed).toBeGreaterThan(100);
  });
});
