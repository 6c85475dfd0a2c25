/** The experiment sequencer (cell.ts) with stand-in phases: order, state handed on, result parts, series and validity. */
import { describe, expect, it } from "vitest";
import type { K6Aggregate } from "../src/analysis/aggregate.ts";
import { runCell } from "../src/experiment/cell.ts";
import { checkPhases, EXPERIMENT_PHASES } from "../src/experiment/experiments.ts";
import type { Phase, RunContext } from "../src/experiment/phase.ts";
import { PROFILE_SETTINGS } from "../src/experiment/profiles.ts";
import { ratio, traced } from "../src/experiment/phases/traced.ts";

const ctx = { settings: PROFILE_SETTINGS.quick, seed: 7, productPrefix: "rtest", onProgress: () => {} } as unknown as RunContext;
const agg = (n: number) => ({ perSecond: Array.from({ length: n }, (_, t) => ({ t, successful: 1 })) }) as unknown as K6Aggregate;

// stand-ins: the snapshot phase hands on `stock`, the ramp phase reads it
const first: Phase = {
  name: "snapshot",
  needs: [],
  adds: ["stock"],
  run: async () => ({ state: { stock: { scope: ["p1"], before: new Map([["p1", 3]]) } }, parameters: { a: 1 }, series: [agg(2)] }),
};
const second: Phase = {
  name: "ramp",
  needs: ["stock"],
  adds: [],
  run: async (_ctx, cell, state) => ({
    result: { maxThroughput: { maxMovingAvg10s: state.stock!.before.get("p1")!, sustainableRate: null, steps: [] } },
    parameters: { b: cell.name },
    series: [agg(3)],
    invalid: ["the generator was the bottleneck"],
  }),
};

describe("an experiment as a sequence of phases", () => {
  it("runs the phases in order, hands state on and gathers parameters, result parts, series and validity", async () => {
    const cell = await runCell(ctx, { workload: "checkout", distribution: "zipf" }, "throughput", [first, second]);
    expect(cell.workload).toBe("checkout");
    expect(cell.parameters).toMatchObject({ products: PROFILE_SETTINGS.quick.products, a: 1, b: "checkout/zipf", productPrefix: "rtest" });
    expect(cell.maxThroughput?.maxMovingAvg10s).toBe(3);
    // one series, the later phase's seconds after the earlier one's
    expect(cell.series.map((p) => p.t)).toEqual([0, 1, 2, 3, 4]);
    expect(cell.valid).toBe(false);
    expect(cell.invalidReason).toBe("the generator was the bottleneck");
  });

  it("refuses a phase list in which a phase needs state no earlier phase adds, before any load", async () => {
    expect(() => checkPhases([second, first])).toThrow("phase ramp needs stock, which no earlier phase (none) adds");
    await expect(runCell(ctx, { workload: "checkout", distribution: "uniform" }, "throughput", [second])).rejects.toThrow(/needs stock/);
  });

  it("refuses state a phase hands on without declaring it", async () => {
    const sneaky: Phase = { ...first, adds: [] };
    await expect(runCell(ctx, { workload: "checkout", distribution: "uniform" }, "throughput", [sneaky])).rejects.toThrow(
      "phase snapshot handed on stock without declaring it in adds (a bug)",
    );
  });

  it("every experiment's phase list is consistent", () => {
    for (const phases of Object.values(EXPERIMENT_PHASES)) expect(() => checkPhases(phases.cell)).not.toThrow();
    // the traced phase follows the stable one: the knee and the published latency are measured without spans
    expect(EXPERIMENT_PHASES.throughput.cell.map((p) => p.name)).toEqual(["snapshot", "ramp", "stable", "traced", "audit"]);
    // a fault or a node added is measured untraced, with no breakdown
    expect(EXPERIMENT_PHASES.fault.cell.map((p) => p.name)).not.toContain("traced");
    expect(EXPERIMENT_PHASES["scale-up"].cell.map((p) => p.name)).not.toContain("traced");
    // the run's own phases are listed like the cells': recovery is an experiment of them alone, the microbenchmarks follow throughput
    expect(EXPERIMENT_PHASES.recovery).toMatchObject({ cell: [], run: [{ name: "recovery" }] });
    expect(EXPERIMENT_PHASES.throughput.run.map((p) => p.name)).toEqual(["micro"]);
    expect(EXPERIMENT_PHASES.fault.run).toEqual([]);
  });
});

describe("the traced phase", () => {
  it("runs no load and adds nothing when the run has no span topic (an untraced target, no Kafka, --no-trace)", async () => {
    const cell = { workload: "checkout", distribution: "uniform", name: "checkout/uniform", file: (p: string) => p, seriesEnd: () => 0 } as const;
    await expect(traced.run(ctx, cell, {})).resolves.toEqual({});
  });

  it("reports tracing's cost as traced / untraced, and nothing where either phase has no sample", () => {
    expect(ratio(2.2, 2, 300)).toBe(1.1);
    expect(ratio(1.96, 2, 300)).toBe(0.98);
    expect(ratio(2, 0, 300)).toBeNull();
    expect(ratio(2, 2, 0)).toBeNull();
  });

  it("is shorter than the stable phase in every profile", () => {
    for (const s of Object.values(PROFILE_SETTINGS)) expect(s.tracedS).toBeLessThanOrEqual(s.stableS);
  });
});
