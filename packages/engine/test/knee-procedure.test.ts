/**
 * The knee procedure around the search, on the in-memory fixture with real
 * k6: a warm-up step that is not judged, quiet time between steps, and the
 * candidate confirmed by longer repeats; the document's knee is what its steps
 * show when the import judges them again.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { judgeCell } from "@sfbench/core";
import { startMemoryTarget, type MemoryTarget } from "@sfbench/conformance/testing";
import { k6Path } from "@sfbench/services";
import { kneeCores } from "../src/experiment/phases/ramp.ts";
import { runBenchmark } from "../src/experiment/run.ts";
import { PROFILE_SETTINGS } from "../src/experiment/profiles.ts";

let target: MemoryTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

describe("the knee procedure", () => {
  it("warms up unjudged, waits for quiet between steps, confirms the candidate and stores the procedure with the cell", { timeout: 240_000 }, async () => {
    target = await startMemoryTarget();
    const dir = mkdtempSync(join(tmpdir(), "sfbench-procedure-"));
    const quick = PROFILE_SETTINGS.quick;
    const { doc } = await runBenchmark({
      target: { name: "procedure", version: "0.0.1", system: "Fixture", manifestDigest: `sha256:${"c".repeat(64)}` },
      baseUrl: target.url,
      k6: await k6Path(),
      profile: "quick",
      // a search that stays below the fixture's capacity, so the confirmation must hold at its top rate
      settings: {
        // low rates and 4 s steps: far below what the fixture serves even on a loaded machine
        stepS: 4,
        knee: { startRate: 3, factor: 2, maxCoarseSteps: 2, fineSteps: 0, maxRate: 6 },
        procedure: {
          repeatNarrow: false,
          warmupS: 2,
          warmupShare: 0.5,
          quiet: { maxS: 1, cpuShare: 0.5 },
          confirm: { count: 2, stepS: 4, stepsDown: 1 },
          drain: { maxS: 1, cpuShare: 0.5 },
        },
        stableS: 2,
      },
      cells: [{ workload: "checkout", distribution: "uniform" }],
      seed: 9,
      repoRoot: process.cwd(),
      resultsDir: join(dir, "results"),
      rawRoot: join(dir, "raw"),
      targetPids: () => [],
      checkAlive: () => {},
      pin: false,
    });
    expect(doc.status).toBe("completed");
    const cell = doc.cells[0]!;
    const steps = cell.maxThroughput!.steps;
    expect(steps[0]).toMatchObject({ phase: "warmup", offeredRate: 1.5, durationS: 2 });
    expect(steps[0]!.failedBecause).toBeUndefined(); // not judged
    expect(steps.slice(1, 3).map((s) => [s.phase, s.offeredRate])).toEqual([
      ["coarse", 3],
      ["coarse", 6],
    ]);
    expect(steps.slice(1).every((s) => typeof s.quietS === "number" && s.quietS <= 2)).toBe(true);
    const confirmation = cell.maxThroughput!.knee!.confirmation!;
    expect(confirmation).toMatchObject({ count: 2, stepS: 4 });
    const confirms = steps.filter((s) => s.phase === "confirm");
    expect(confirms.length).toBeGreaterThanOrEqual(1);
    expect(confirms.every((s) => s.durationS === 4)).toBe(true);
    expect(confirms[0]!.offeredRate).toBe(confirmation.candidateRate);
    // the published knee is the confirmed rate
    expect(cell.maxThroughput!.sustainableRate).toBe(confirmation.confirmedRate);
    // a target given by URL has no processes to count: no cores per step, none at the knee
    expect(steps.some((s) => s.targetCores !== undefined)).toBe(false);
    expect(cell.maxThroughput!.kneeCores).toBeUndefined();
    expect(cell.parameters).toMatchObject({ warmupS: 2, quietMaxS: 1, confirmCount: 2, confirmStepS: 4, confirmStepsDown: 1, drainMaxS: 1 });
    // the stable phase waited for the target to settle, within the bound
    expect(cell.parameters.stableDrainS).toBeGreaterThanOrEqual(0);
    expect(cell.parameters.stableDrainS).toBeLessThanOrEqual(2);
    // the import's reading agrees with the engine's
    const judged = judgeCell(cell);
    expect(judged.sustainableRate).toBe(cell.maxThroughput!.sustainableRate);
    expect(judged.kneeResolution).toBe(cell.maxThroughput!.knee!.resolution);
    expect(judged.valid).toBe(cell.valid);
    expect(quick.procedure.confirm.count).toBe(0); // the quick profile stays a smoke test
  });
});

describe("the cores at the knee", () => {
  const step = (offeredRate: number, targetCores: number | undefined, extra: Record<string, unknown> = {}) =>
    ({
      scenario: "s",
      offeredRate,
      durationS: 6,
      achievedRate: offeredRate,
      completedShare: 1,
      errorRate: 0,
      droppedIterations: 0,
      latency: {} as never,
      ...(targetCores === undefined ? {} : { targetCores }),
      ...extra,
    }) as never;

  it("is the mean over the sustainable judged steps at the sustainable rate, leaving out the warm-up and failed repeats", () => {
    const steps = [
      step(40, 0.9, { phase: "warmup" }),
      step(40, 0.5, { phase: "coarse" }),
      step(80, 1.0, { phase: "coarse", failedBecause: ["p99"] }),
      step(60, 0.8, { phase: "fine" }),
      step(60, 0.95, { phase: "confirm", failedBecause: ["completed 90%"] }),
      step(60, 0.86, { phase: "confirm" }),
    ];
    expect(kneeCores(steps, 60)).toBe(0.83);
    expect(kneeCores(steps, 40)).toBe(0.5);
  });

  it("is unknown without a knee or without the target's CPU", () => {
    expect(kneeCores([step(60, 0.8)], null)).toBeUndefined();
    expect(kneeCores([step(60, undefined)], 60)).toBeUndefined();
  });
});
