import { parseResult } from "@sfbench/core";
import { LatencyHistogram } from "@sfbench/engine";
import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../fixtures/manifest.ts";
import { fixtureFailedResult, fixtureResult } from "../fixtures/result-doc.ts";

const { digest } = fixtureManifest("fx");
const target = { name: "fx", system: "Fixture", version: "0.1.0", manifestDigest: digest };

describe("fixture result documents", () => {
  it("are valid result documents (parseResult accepts them), full and small", () => {
    for (const size of ["full", "small"] as const) {
      const parsed = parseResult(JSON.parse(JSON.stringify(fixtureResult({ target, size, seed: 7 }))));
      expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    }
    expect(parseResult(fixtureFailedResult({ target })).ok).toBe(true);
  });

  it("are deterministic per seed, apart from the run id", () => {
    const a = fixtureResult({ target, seed: 3, runId: "00000000-0000-4000-8000-000000000001", size: "small" });
    const b = fixtureResult({ target, seed: 3, runId: "00000000-0000-4000-8000-000000000001", size: "small" });
    expect(a).toEqual(b);
  });

  it("carry real HDR histograms whose stats match the stored latency", () => {
    const cell = fixtureResult({ target, seed: 5, size: "small" }).cells[0]!;
    const decoded = LatencyHistogram.decode(cell.stable!.histogram);
    expect(decoded.stats()).toEqual(cell.stable!.latency);
  });

  it("saturate at the capacity: the sustainable rate is below the highest offered step", () => {
    const { maxThroughput } = fixtureResult({ target, seed: 9, capacity: 1000, size: "small" }).cells[0]!;
    const top = Math.max(...maxThroughput!.steps.map((s) => s.offeredRate));
    expect(maxThroughput!.sustainableRate).toBeLessThan(top);
    // the steps above it fail by core's rule, which the fixture judges them by
    const failed = maxThroughput!.steps.filter((s) => s.offeredRate > maxThroughput!.sustainableRate!);
    expect(failed.length).toBeGreaterThan(0);
    for (const s of failed) expect(s.failedBecause?.join("; ")).toMatch(/of the offered rate|error rate/);
  });

  it("make the cell asked for invalid, with a reason and no numbers", () => {
    const cell = fixtureResult({ target, size: "small", invalidCell: "checkout/zipf" }).cells.find(
      (c) => c.distribution === "zipf" && c.workload === "checkout",
    )!;
    expect(cell).toMatchObject({ valid: false, series: [] });
    expect(cell.maxThroughput).toBeUndefined();
  });
});
