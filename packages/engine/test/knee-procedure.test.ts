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
import { kneeCores, warmedUp, warmUp, warmupStepOf } from "../src/experiment/phases/ramp.ts";
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
          // a target given by URL has no CPU to read: one warm-up step, however it is asked to settle
          warmupSettle: { maxSteps: 3, tolerance: 0.1 },
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
    expect(steps.filter((s) => s.phase === "warmup")).toHaveLength(1);
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
    expect(cell.parameters).toMatchObject({
      warmupS: 2,
      warmupSteps: 1,
      warmupSettleTolerance: 0.1,
      warmupSettled: true,
      quietMaxS: 1,
      // a target given by URL has nothing to watch: every wait counts as settled
      quietUnsettled: 0,
      confirmCount: 2,
      confirmStepS: 4,
      confirmStepsDown: 1,
      drainMaxS: 1,
    });
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

describe("the warm-up's end", () => {
  const at = (cost: number | undefined, extra: { full?: boolean; overloaded?: boolean } = {}) => ({ cost, full: false, overloaded: false, ...extra });

  it("comes when the CPU per request stops falling by more than the tolerance, never after the first step alone", () => {
    expect(warmedUp([at(0.02)], 0.1)).toBe(false); // one step cannot say whether it still falls
    expect(warmedUp([at(0.02), at(0.015)], 0.1)).toBe(false); // 25% cheaper than the step before
    expect(warmedUp([at(0.02), at(0.015), at(0.014)], 0.1)).toBe(true); // 7% cheaper: settled
    expect(warmedUp([at(0.02), at(0.0181)], 0.1)).toBe(true); // 9.5%: within the tolerance
    expect(warmedUp([at(0.015), at(0.018)], 0.1)).toBe(true); // dearer (a checkpoint, a vacuum) is not warming
  });

  it("does not come while the target fills its cores at a rate it serves, however level its cost", () => {
    // Pekko at 25/s: 0.98 and 0.95 of its one core, its JIT compiling beside the requests
    expect(warmedUp([at(0.039, { full: true }), at(0.038, { full: true })], 0.1)).toBe(false);
    expect(warmedUp([at(0.039, { full: true }), at(0.038, { full: true }), at(0.02)], 0.1)).toBe(false); // 47% cheaper: still falling
    expect(warmedUp([at(0.039, { full: true }), at(0.02), at(0.019)], 0.1)).toBe(true);
  });

  it("comes at once when the cost cannot be read or the rate is above what the target serves", () => {
    expect(warmedUp([at(undefined)], 0.1)).toBe(true); // a target given by URL, or no request succeeded
    expect(warmedUp([at(0.02), at(undefined)], 0.1)).toBe(true);
    expect(warmedUp([at(undefined), at(0.01)], 0.1)).toBe(true);
    // a workflow engine whose knee is below the warm-up rate: more steps of overload tell nothing
    expect(warmedUp([at(0.15, { full: true, overloaded: true })], 0.1)).toBe(true);
  });

  it("reads a step as overloaded by what the target served inside it, not by the answers that came after it", () => {
    // Dapr's analytics at 25/s: 8 s, 13.3 queries/s answered inside the step, the rest during k6's grace period
    const step = { offeredRate: 25, achievedRate: 24.6, window: { completedRate: 13.3 } };
    const read = warmupStepOf(step, 1.07, 1);
    expect(read).toEqual({ cost: 1.07 / 24.6, overloaded: true, full: true });
    expect(warmedUp([read], 0.1)).toBe(true);
    // served inside the step: judged by its cost alone
    expect(warmupStepOf({ ...step, window: { completedRate: 24.1 } }, 0.5, 1)).toEqual({ cost: 0.5 / 24.6, overloaded: false, full: false });
    // planned rejections (a checkout without stock) are served requests, as the search counts them
    expect(warmupStepOf({ offeredRate: 25, achievedRate: 20, window: { completedRate: 24.5 } }, 0.5, 1).overloaded).toBe(false);
    // a target given by URL: no cores, no cost, no verdict on its cores
    expect(warmupStepOf(step, undefined, undefined)).toEqual({ cost: undefined, overloaded: true, full: false });
  });

  it("runs steps until then, at most maxSteps, and says why each further one runs", async () => {
    const run = async (steps: ReturnType<typeof at>[], settle?: { maxSteps: number; tolerance: number }) => {
      const said: string[] = [];
      let i = 0;
      const out = await warmUp(
        async () => steps[i++]!,
        settle,
        (line) => said.push(line),
      );
      return { ...out, ran: i, said };
    };
    // a JVM: its core full at first, then 25, 18 and 17.5 core-ms per request
    const jvm = await run([at(0.04, { full: true }), at(0.025), at(0.018), at(0.0175), at(0.017)], { maxSteps: 6, tolerance: 0.1 });
    expect(jvm).toMatchObject({ steps: 4, settled: true, ran: 4 });
    expect(jvm.said).toEqual([
      "warm-up step 1: 40.00 core-ms per request, all its cores busy: warming up again",
      "warm-up step 2: 25.00 core-ms per request (40.00 core-ms the step before): warming up again",
      "warm-up step 3: 18.00 core-ms per request (25.00 core-ms the step before): warming up again",
    ]);
    const still = await run([at(0.04), at(0.03), at(0.02), at(0.01)], { maxSteps: 3, tolerance: 0.1 });
    expect(still).toMatchObject({ steps: 3, settled: false, ran: 3 });
    expect(still.said.at(-1)).toBe(
      "warm-up step 3: 20.00 core-ms per request (30.00 core-ms the step before), not settled after 3 warm-up steps: the search starts anyway",
    );
    // a profile without settling: one step, whatever it cost
    expect(await run([at(0.04), at(0.01)])).toMatchObject({ steps: 1, settled: true, ran: 1, said: [] });
    // a target given by URL: one step
    expect(await run([at(undefined), at(0.01)], { maxSteps: 6, tolerance: 0.1 })).toMatchObject({ steps: 1, settled: true, ran: 1 });
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
