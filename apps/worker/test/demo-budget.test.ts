/**
 * The demo within a budget (scripts/lib/demo-budget.ts): each system's trial
 * time from the newest kept campaign that measured it on the same cell and
 * profile, the ones never measured planned as long as the longest known; and
 * at the end each system's ratio to the reference in the live rounds, beside
 * the kept one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { listTargets } from "@sfbench/catalogue";
import { compareStatistics } from "../../../packages/cli/src/reproduce.ts";
import { keptCampaigns, keptRatios, liveStatistics, measuresTheCell, planDemo, UNKNOWN_FACTOR, type LiveTrial } from "../../../scripts/lib/demo-budget.ts";

const KEPT = fileURLToPath(new URL("../../../results/campaigns", import.meta.url));
const kept = keptCampaigns(KEPT);

const doc = (rate: number | null, status = "completed"): LiveTrial["document"] => ({
  status,
  cells: [{ workload: "checkout", distribution: "uniform", valid: rate !== null, maxThroughput: { sustainableRate: rate } }],
});

describe("the demo's campaign within a budget", () => {
  it("imports only bundled systems: a campaign of a system against a copy of itself is kept in results/comparisons/, not among the board's evidence", () => {
    const bundled = new Set(listTargets().map((t) => t.name));
    // what the import makes a system of: each trial document's target name
    const strangers = readdirSync(KEPT).flatMap((folder) => {
      const campaign = JSON.parse(readFileSync(join(KEPT, folder, "campaign.json"), "utf8")) as { trials: { document?: string }[] };
      return campaign.trials.flatMap(({ document }) => {
        if (!document) return [];
        const { target } = JSON.parse(readFileSync(join(KEPT, folder, document), "utf8")) as { target: { name: string } };
        return bundled.has(target.name) ? [] : [`${folder}: ${target.name}`];
      });
    });
    expect(strangers).toEqual([]);
  });

  it("reads the kept campaigns newest first", () => {
    expect(kept.length).toBeGreaterThan(1);
    expect(kept.map((c) => c.startedAt)).toEqual([...kept.map((c) => c.startedAt)].sort().reverse());
  });

  it("takes each system's time from the newest kept checkout campaign that measured it, and plans the others longer than the longest", () => {
    const plan = planDemo({
      systems: ["node-postgres", "statefun", "never-measured"],
      reference: "node-postgres",
      kept,
      profile: "standard",
      budgetS: 24 * 3600,
      trials: 3,
    });
    // the reference first; the others fastest first, which the kept campaigns decide as they come
    expect(plan.chosen[0]).toBe("node-postgres");
    expect([...plan.chosen].sort()).toEqual(["never-measured", "node-postgres", "statefun"]);
    const newest = kept.find((c) => measuresTheCell(c, "standard") && c.targets.some((t) => t.name === "statefun"))!;
    expect(plan.times.statefun!.from.campaignId).toBe(newest.campaignId);
    expect(plan.times["never-measured"]).toBeNull();
    expect(UNKNOWN_FACTOR).toBeGreaterThan(1);
    expect(plan.trialS["never-measured"]).toBe(UNKNOWN_FACTOR * Math.max(plan.trialS["node-postgres"]!, plan.trialS.statefun!));
    // the trials, and room for one repeat of the longest (a busy trial's)
    expect(plan.repeatS).toBe(plan.trialS["never-measured"]);
    expect(plan.estimateS).toBeCloseTo(3 * (plan.trialS["node-postgres"]! + plan.trialS.statefun! + plan.trialS["never-measured"]!) + plan.repeatS, 6);
  });

  it("puts each system's ratio in the live rounds beside the kept one, counting a failed or invalid trial as no figure", () => {
    const trials: LiveTrial[] = [
      { system: "node-postgres", round: 1, document: doc(100) },
      { system: "node-postgres", round: 2, document: doc(110) },
      { system: "node-postgres", round: 3, document: doc(90) },
      { system: "statefun", round: 1, document: doc(50) },
      { system: "statefun", round: 2, document: doc(55) },
      { system: "statefun", round: 3, document: doc(null) },
      { system: "pekko", round: 1, document: doc(50, "failed") },
    ];
    const live = liveStatistics(["node-postgres", "statefun", "pekko"], "node-postgres", trials);
    const statefun = live.find((s) => s.target === "statefun")!;
    expect(statefun).toMatchObject({ n: 2, invalid: 1, median: 52.5 });
    expect(statefun.ratioToReference).toMatchObject({ reference: "node-postgres", n: 2, ratio: 0.5 });
    const ratios = keptRatios(kept, "standard", "node-postgres");
    const rows = compareStatistics(ratios, live, "node-postgres");
    const row = rows.find((r) => r.target === "statefun")!;
    // the newest kept campaign that measured statefun beside the reference gives the kept ratio
    const newest = kept.find(
      (c) => measuresTheCell(c, "standard") && c.reference === "node-postgres" && c.statistics.some((s) => s.target === "statefun" && s.ratioToReference),
    )!;
    const keptRatio = newest.statistics.find((s) => s.target === "statefun")!.ratioToReference!;
    expect(ratios.find((s) => s.target === "statefun")!.ratioToReference).toEqual(keptRatio);
    expect(row.kept?.ratio).toBe(keptRatio.ratio);
    // a 0.5 measured here lies below every kept interval of statefun (1.35x and more on either machine)
    expect(keptRatio.interval!.low).toBeGreaterThan(0.5);
    expect(row.here?.ratio).toBe(0.5);
    expect(row.holds).toBe(false);
    expect(rows.find((r) => r.target === "pekko")).toMatchObject({ here: null, holds: null });
  });
});
