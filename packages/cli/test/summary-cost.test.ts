import type { ResultDocument } from "@sfbench/core";
import { describe, expect, it } from "vitest";
import { costLines } from "../src/summary.ts";

const cost = { coreSecondsPer1000: 190, throughputPerCore: 5.3, peakRssBytes: 1 << 28, targetCpuSeconds: 57, generatorCpuSeconds: 3, generatorCpuShare: 0.1 };
/** only what the summary's cost lines read */
const doc = (cells: unknown[]) => ({ cells }) as unknown as ResultDocument;

describe("the summary's CPU by process", () => {
  it("prints a cell's split largest first, and nothing for a cell without one", () => {
    const lines = costLines(
      doc([
        {
          workload: "checkout",
          distribution: "uniform",
          cost: { ...cost, cpuByProcess: { "node app/main.ts": 50, "restate-server": 120.5, "node gateway/main.ts": 19.5 } },
        },
        { workload: "analytics", distribution: "uniform", cost },
        { workload: "analytics", distribution: "zipf" },
      ]),
    );
    expect(lines).toEqual(["core-s/1000 by process, checkout/uniform: restate-server 120.50, node app/main.ts 50.00, node gateway/main.ts 19.50"]);
  });
});
