/**
 * What gets ranked is earned: a target that sheds load with fast 409s where
 * the workload knows a 409 cannot be right gets no throughput, no latency and
 * no rank for it. Real k6 against the in-memory fixture target.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rankable } from "@sfbench/core";
import { startMemoryTarget, type MemoryTarget } from "@sfbench/conformance/testing";
import { k6Path } from "@sfbench/services";
import { runBenchmark } from "../src/experiment/run.ts";

let target: MemoryTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function quickCheckout(fault: "none" | "shed-load") {
  target = await startMemoryTarget({ fault });
  const dir = mkdtempSync(join(tmpdir(), `sfbench-earned-${fault}-`));
  const { doc } = await runBenchmark({
    target: { name: `earned-${fault}`, version: "0.0.1", system: "Fixture", manifestDigest: `sha256:${"b".repeat(64)}` },
    baseUrl: target.url,
    k6: await k6Path(),
    profile: "quick",
    cells: [{ workload: "checkout", distribution: "uniform" }],
    seed: 5,
    repoRoot: process.cwd(),
    resultsDir: join(dir, "results"),
    rawRoot: join(dir, "raw"),
    targetPids: () => [],
    checkAlive: () => {},
    pin: false,
  });
  expect(doc.status).toBe("completed");
  return doc.cells[0]!;
}

describe("a target that sheds load with 409s in checkout/uniform", () => {
  it("has them counted as errors, unwarranted by the audit, and is not ranked", { timeout: 240_000 }, async () => {
    const cell = await quickCheckout("shed-load");
    expect(cell.parameters.rejections).toBe("failure");
    // every fourth checkout is shed: a quarter of the stable phase fails, none of it is "rejected"
    expect(cell.stable!.errorRate).toBeGreaterThan(0.2);
    expect(cell.valid).toBe(false);
    expect(cell.invalidReason).toMatch(/stable phase: error rate/);
    // the ramp could not count the shed checkouts as completed work either
    for (const step of cell.maxThroughput!.steps.filter((s) => s.phase !== "warmup")) expect(step.failedBecause?.join(" ")).toMatch(/error rate/);
    expect(cell.maxThroughput!.sustainableRate).toBeNull();
    expect(cell.anomalies!.kinds["unwarranted-rejection"]).toBeGreaterThan(0);
    expect(rankable(cell).ok).toBe(false);
  });

  it("while the same fixture without shedding completes every checkout and the audit finds nothing", { timeout: 240_000 }, async () => {
    const cell = await quickCheckout("none");
    expect(cell.stable!.errorRate).toBe(0);
    expect(cell.anomalies!.total).toBe(0);
    expect(cell.maxThroughput!.sustainableRate).not.toBeNull();
  });
});
