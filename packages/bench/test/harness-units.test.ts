/** The harness's pure parts: the injected distribution, wrk's report, the comparison of two campaigns, the report table. */
import { listTargets } from "@sfbench/catalogue";
import { overheadTargets } from "../src/lib/overhead-targets.ts";
import { describe, expect, it } from "vitest";
import { delaySource, injectedQuantile } from "../src/lib/injected.ts";
import { table } from "../src/lib/report.ts";
import { parseWrk } from "../src/lib/wrk.ts";
import type { CampaignDocument, CampaignTrial, CellStatistics } from "@sfbench/core";
import { compareCampaigns, repeatabilityReport } from "../src/repeatability.ts";
import { summarize, type GeneratorTrial } from "../src/generator.ts";
import { LatencyHistogram } from "@sfbench/engine";

describe("injected distribution", () => {
  const d = { baseMs: 5, meanMs: 5 };

  it("has the closed-form quantiles of 5 + Exp(5)", () => {
    expect(injectedQuantile(d, 0)).toBe(5);
    expect(injectedQuantile(d, 0.5)).toBeCloseTo(5 + 5 * Math.LN2, 12);
    expect(injectedQuantile(d, 0.99)).toBeCloseTo(5 + 5 * Math.log(100), 12);
  });

  it("quasi-random draws match the quantiles within HDR precision after 2000 draws; random ones only statistically", () => {
    for (const [sequence, tolP50, tolP99] of [
      ["quasi", 0.02, 0.1],
      ["random", 0.3, 2],
    ] as const) {
      const next = delaySource(d, sequence, 3);
      const h = LatencyHistogram.create();
      for (let i = 0; i < 2000; i++) h.recordMs(next());
      expect(Math.abs(h.percentileMs(50)! - injectedQuantile(d, 0.5)), sequence).toBeLessThan(tolP50);
      expect(Math.abs(h.percentileMs(99)! - injectedQuantile(d, 0.99)), sequence).toBeLessThan(tolP99);
    }
  });

  it("zero delay stays zero", () => {
    const next = delaySource({ baseMs: 0, meanMs: 0 }, "quasi");
    expect([next(), next(), next()].every((x) => x === 0)).toBe(true);
  });
});

describe("parseWrk", () => {
  it("reads wrk 4.1's report", () => {
    const out = `Running 5s test @ http://127.0.0.1:18080/
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.69ms    9.19ms  81.96ms   91.94%
    Req/Sec    28.57k     9.28k   44.09k    71.43%
  143007 requests in 5.11s, 20.59MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 7
Requests/sec:  27987.55
Transfer/sec:      4.03MB
`;
    expect(parseWrk(out)).toEqual({ requestsPerS: 27987.55, requests: 143007, durationS: 5.11, non2xx: 7, socketErrors: 3 });
  });

  it("names what it could not read", () => {
    expect(() => parseWrk("unable to connect to 127.0.0.1:1 Connection refused")).toThrow(/unexpected wrk output: unable to connect/);
  });
});

describe("small helpers", () => {
  it("compares two campaigns: medians, interval half-widths, and the order of systems whose intervals are apart", () => {
    const stat = (target: string, median: number, low: number, high: number) =>
      ({ target, workload: "checkout", distribution: "uniform", median, interval: { low, high } }) as CellStatistics;
    const trial = (target: string, round: number, notes: string[], status: CampaignTrial["status"] = "completed", counted = true) =>
      ({ target, round, status, counted, notes }) as CampaignTrial;
    const campaign = (statistics: CellStatistics[], trials: CampaignTrial[] = []) => ({ statistics, trials }) as unknown as CampaignDocument;
    const r = compareCampaigns(
      campaign([stat("a", 200, 190, 210), stat("b", 100, 80, 120)], [trial("a", 1, []), trial("b", 1, [])]),
      campaign(
        [stat("a", 230, 200, 260), stat("b", 105, 100, 110)],
        [
          trial("a", 1, ["checkout/uniform: stable phase: p99 1200 ms (needs < 1000 ms, as a sustainable step)"]),
          trial("b", 1, ["run: target did not start"], "failed"),
          trial("b", 2, ["checkout/uniform: busy, repeated"], "completed", false),
        ],
      ),
      ["one.json", "two.json"],
      "sfbench campaign --targets a,b",
    );
    const a = r.systems.find((s) => s.target === "a")!;
    expect(a.difference).toBeCloseTo(0.15, 10);
    expect(a.medianPass).toBe(false);
    expect(a.halfWidths[0]).toBeCloseTo(0.05, 10);
    expect(a.halfWidths[1]).toBeCloseTo(30 / 230, 10);
    expect(a.intervalPass).toBe(false);
    const b = r.systems.find((s) => s.target === "b")!;
    expect(b.medianPass).toBe(true);
    expect(b.halfWidths[0]).toBeCloseTo(0.2, 10);
    expect(r.order).toEqual([{ cell: "checkout/uniform", higher: "a", lower: "b", kept: true }]);
    expect(repeatabilityReport(r)).toMatch(/checkout\/uniform: a above b \(intervals apart in campaign 1\): kept in campaign 2/);
    // counted trials without a figure are named with their reason; a trial that was repeated is not counted
    expect(r.noFigure).toEqual([
      { campaign: 2, target: "a", round: 1, why: "checkout/uniform: stable phase: p99 1200 ms (needs < 1000 ms, as a sustainable step)" },
      { campaign: 2, target: "b", round: 1, why: "run: target did not start" },
    ]);
    expect(repeatabilityReport(r)).toMatch(/\ncampaign 2: b round 1 gave no figure: run: target did not start\n/);
  });

  it("table pads columns", () => {
    expect(
      table([
        ["a", "bb"],
        ["ccc", "d"],
      ]),
    ).toBe("a    bb\n---  --\nccc  d");
  });
});

describe("bench:overhead's targets", () => {
  const catalogue = listTargets();
  it("measures node-postgres by default, every bundled target that writes spans with all, and refuses the others by name", () => {
    expect(overheadTargets(undefined, catalogue)).toEqual(["node-postgres"]);
    const all = overheadTargets("all", catalogue);
    expect(all).toEqual(catalogue.filter((t) => t.manifest.tracing).map((t) => t.name));
    expect(all.length).toBeGreaterThan(3);
    expect(overheadTargets("restate, node-postgres,restate", catalogue)).toEqual(["restate", "node-postgres"]);
    expect(() => overheadTargets("nope", catalogue)).toThrow(/--targets: "nope" is not a bundled target \(bundled: /);
    const untraced = catalogue.find((t) => !t.manifest.tracing);
    if (untraced) expect(() => overheadTargets(untraced.name, catalogue)).toThrow(/writes no spans/);
    expect(() => overheadTargets(",", catalogue)).toThrow(/at least one/);
  });
});

describe("bench:overhead's ratios", () => {
  it("divides each mode's p50 by the same round's baseline and takes the median over rounds", async () => {
    const { median, roundRatios } = await import("../src/lib/ratios.ts");
    const phases = [
      { round: 0, mode: "off", p50: 10 },
      { round: 0, mode: "full", p50: 10.4 },
      { round: 1, mode: "off", p50: 20 }, // a busier moment: both modes slower, the ratio the same
      { round: 1, mode: "full", p50: 20.8 },
      { round: 2, mode: "full", p50: 99 }, // no baseline in this round: not counted
    ];
    const r = roundRatios(phases, ["off", "full", "spans"]);
    expect(r.off).toBe(1);
    expect(r.full).toBeCloseTo(1.04, 9);
    expect(r.spans).toBeNaN();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it("gives the p99 ratios the same way, skipping phases that have no p99", async () => {
    const { roundRatios } = await import("../src/lib/ratios.ts");
    const phases = [
      { round: 0, mode: "off", p50: 1, p99: 5 },
      { round: 0, mode: "full", p50: 1, p99: 6 },
      { round: 1, mode: "off", p50: 1, p99: 4 },
      { round: 1, mode: "full", p50: 1 },
    ];
    expect(roundRatios(phases, ["full"], "off", "p99").full).toBeCloseTo(1.2, 9);
  });
});

describe("bench:profiles's figures and report", () => {
  const cell = (p50: number, p99: number, offered: number) =>
    ({
      workload: "checkout",
      distribution: "uniform",
      parameters: { products: 5000, stableS: 30, stepS: 6 },
      seed: 1,
      valid: true,
      series: [],
      maxThroughput: { steps: [{ offeredRate: 50 }, { offeredRate: 100 }, { offeredRate: 200 }], sustainableRate: 141, knee: { resolution: 0.09 } },
      stable: { offeredRate: offered, achievedRate: offered - 0.2, completedShare: 0.998, latency: { p50, p99 } },
    }) as unknown as import("@sfbench/core").Cell;

  it("takes the stable phase's latency and what ran before it from a run's cell", async () => {
    const { figures } = await import("../src/profiles.ts");
    const r = figures(0, "standard", cell(2.5, 9, 100), { generator: "0", target: "1" });
    expect(r).toMatchObject({
      p50: 2.5,
      p99: 9,
      offered: 100,
      rampSteps: 3,
      rampMaxRate: 200,
      knee: 141,
      kneeResolution: 0.09,
      products: 5000,
      stableS: 30,
      valid: true,
      cpuSplit: { generator: "0", target: "1" },
    });
    const noStable = { ...cell(1, 1, 1), stable: undefined, invalidReason: "the target died" } as unknown as import("@sfbench/core").Cell;
    expect(() => figures(0, "quick", noStable)).toThrow(/quick: the run has no stable phase \(the target died\)/);
  });

  it("reports each configuration against quick in the same round, the median over rounds", async () => {
    const { figures, report } = await import("../src/profiles.ts");
    const runs = [
      figures(0, "quick", cell(2, 8, 100)),
      figures(0, "standard", cell(3, 12, 100)),
      figures(1, "quick", cell(4, 8, 100)),
      figures(1, "standard", cell(6, 16, 100)),
    ];
    const text = report(runs, { rate: 100, rounds: 2, stableS: 30, only: ["quick", "standard"] }, new Date("2026-11-24T00:00:00Z"));
    expect(text).toMatch(
      /\| quick \| 1000 products, quick ramp, 3 s stable \| 3, 200\/s \| 141\/s \(9%\), 141\/s \(9%\) \| 100\/s \| 3\.00 \| 8\.0 \| 1\.00 \| 1\.00 \| 2\/2 \|/,
    );
    expect(text).toMatch(/\| standard \| .* \| 4\.50 \| 14\.0 \| 1\.50 \| 1\.75 \| 2\/2 \|/);
  });
});

describe("bench:generator's arithmetic", () => {
  it("takes each setting's median cost and the checkout rate one core offers at the 90% limit", () => {
    const trial = (setting: GeneratorTrial["setting"], round: number, cpuSeconds: number): GeneratorTrial => ({
      setting,
      round,
      iterations: 1000,
      requests: 9000,
      windowS: 10,
      cpuSeconds,
      cpuPerIterationUs: cpuSeconds * 1000,
      peakRssMiB: 100 * round,
      failedChecks: 0,
    });
    const [runs, defaults] = summarize([
      trial("runs", 1, 2),
      trial("go-default", 1, 3),
      trial("runs", 2, 1.8),
      trial("runs", 3, 2.4),
      trial("go-default", 2, 2.6),
    ]);
    expect(runs).toMatchObject({ setting: "runs", trials: 3, cpuPerIterationUs: 2000, peakRssMiB: 300 });
    expect(runs!.cpuPerRequestUs).toBeCloseTo(2000 / 9, 6);
    expect(runs!.ceilingPerS).toBeCloseTo(450, 6);
    expect(defaults).toMatchObject({ setting: "go-default", trials: 2, cpuPerIterationUs: 2800 });
  });
});
