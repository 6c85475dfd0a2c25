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
  it("passes every check, the micro group (SPEC 8: target.json declares micro) included", { timeout: 300_000 }, async () => {
    const report = await runConformance(t.url, { micro: true });
    const failures = report.checks.filter((c) => !c.passed).map(formatFailure);
    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(report.failed).toBe(0);
    expect(report.checks.filter((c) => c.group === "micro").length).toBeGreaterThan(40);
    expect(report.passed).toBeGreaterThan(160);
  });
});
