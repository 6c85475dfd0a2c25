/**
 * Reproducing a kept campaign: the plan fits the reference and as many
 * targets as the budget holds, from the kept trials' own times; the
 * comparison puts this machine's ratio beside the kept one and says whether
 * the kept interval holds; the command prints the plan before anything runs
 * and refuses what it cannot plan, naming the flag.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseCampaign, type CampaignDocument } from "@sfbench/core";
import { compareRatios, comparisonText, keptOverheadSeconds, keptTrialSeconds, parseBudget, planReproduction } from "../src/reproduce.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
/** a kept quiet-machine campaign: node-postgres and statefun, ten rounds */
const KEPT_DIR = join(REPO, "results/campaigns/20261129-105448-a4a20181");
const kept = (() => {
  const parsed = parseCampaign(JSON.parse(readFileSync(join(KEPT_DIR, "campaign.json"), "utf8")));
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.campaign;
})();

/** the kept campaign with a third target whose trials took `wallS` each */
function withThird(wallS: number): CampaignDocument {
  const third = kept.trials
    .filter((t) => t.target === "statefun")
    .map((t) => ({ ...t, target: "pekko", runId: crypto.randomUUID(), noise: { ...t.noise!, wallS } }));
  return { ...kept, targets: [...kept.targets, { ...kept.targets[1]!, name: "pekko" }], trials: [...kept.trials, ...third] };
}

const sfbench = (...args: string[]) =>
  spawnSync(process.execPath, [join(REPO, "packages/cli/bin/sfbench.mjs"), ...args], { cwd: REPO, encoding: "utf8", timeout: 60_000 });

describe("planning a reproduction from a kept campaign", () => {
  it("estimates a trial from the kept trials: the median measured time plus the campaign's own overhead per trial", () => {
    const overhead = keptOverheadSeconds(kept);
    // the campaign took 67.6 minutes for 20 trials whose measurements took 62.7: about 15 s a trial to start, verify and stop
    expect(overhead).toBeGreaterThan(5);
    expect(overhead).toBeLessThan(30);
    const walls = kept.trials
      .filter((t) => t.target === "node-postgres")
      .map((t) => t.noise!.wallS)
      .sort((a, b) => a - b);
    expect(keptTrialSeconds(kept, "node-postgres")).toBeCloseTo((walls[4]! + walls[5]!) / 2 + overhead, 6);
    expect(keptTrialSeconds(kept, "restate")).toBeNull();
  });

  it("takes the reference and as many others as fit, fastest first, and says why the rest were left out", () => {
    const doc = withThird(1200);
    const plan = planReproduction(doc, { budgetS: 30 * 60, trials: 3 });
    expect(plan.chosen).toEqual(["node-postgres", "statefun"]);
    expect(plan.left).toEqual([{ target: "pekko", why: expect.stringMatching(/^3 trials of about 20 min do not fit the \d+ min left$/) }]);
    expect(plan.estimateS).toBeLessThanOrEqual(30 * 60);
    const [reference, other] = [plan.trialS["node-postgres"]!, plan.trialS.statefun!];
    expect(plan.repeatS).toBe(Math.max(reference, other));
    expect(plan.estimateS).toBeCloseTo(3 * (reference + other) + plan.repeatS, 6);
    // the room for a busy trial's repeat counts: a budget that holds the trials alone does not take a system
    expect(planReproduction(doc, { budgetS: 3 * (reference + other) + 1, trials: 3 }).chosen).toEqual(["node-postgres"]);
    // a larger budget takes every one
    expect(planReproduction(doc, { budgetS: 120 * 60, trials: 3 }).chosen).toEqual(["node-postgres", "statefun", "pekko"]);
  });

  it("refuses a budget the reference alone does not fit, saying what it needs", () => {
    expect(() => planReproduction(kept, { budgetS: 120, trials: 3 })).toThrow(
      /too small: the reference node-postgres alone needs about \d+ min \(3 trials of \d+ min each in the kept campaign, and room for one busy trial's repeat\)/,
    );
    const { reference: _, ...noReference } = kept;
    expect(() => planReproduction(noReference as CampaignDocument, { budgetS: 3600, trials: 3 })).toThrow(/has no reference target/);
  });

  it("reads budgets as people write them", () => {
    expect(parseBudget("30m")).toBe(1800);
    expect(parseBudget("1h30m")).toBe(5400);
    expect(parseBudget("90s")).toBe(90);
    expect(parseBudget("45")).toBe(2700);
    expect(parseBudget("2x")).toBeUndefined();
    expect(parseBudget("")).toBeUndefined();
  });
});

describe("comparing this machine's ratios with the kept ones", () => {
  const here = (ratio: number, low: number, high: number): CampaignDocument => ({
    ...kept,
    statistics: kept.statistics.map((s) =>
      s.target === "statefun" ? { ...s, ratioToReference: { reference: "node-postgres", n: 3, ratio, interval: { low, high } } } : s,
    ),
  });

  it("says the kept interval holds when this machine's ratio falls inside it, and not when it falls outside", () => {
    const keptRatio = kept.statistics.find((s) => s.target === "statefun")!.ratioToReference!;
    const inside = compareRatios(kept, here(keptRatio.ratio, keptRatio.ratio - 0.3, keptRatio.ratio + 0.3));
    expect(inside).toEqual([{ target: "statefun", cell: "checkout/uniform", kept: keptRatio, here: expect.objectContaining({ n: 3 }), holds: true }]);
    const outside = compareRatios(kept, here(1.4, 1.3, 1.5));
    expect(outside[0]!.holds).toBe(false);
    const text = comparisonText(kept, outside);
    expect(text).toContain("ratios to node-postgres, each measured in the same rounds:");
    expect(text).toMatch(/statefun +checkout\/uniform +2\.22x \(1\.99 \.\. 2\.48\), n=10 +1\.40x \(1\.30 \.\. 1\.50\), n=3 +no:/);
  });
});

describe("sfbench reproduce", () => {
  it("prints the plan and runs nothing with --dry-run", () => {
    const r = sfbench("reproduce", "--campaign", KEPT_DIR, "--budget", "30m", "--dry-run");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^reproducing campaign a4a20181 \(2026-11-29, AMD EPYC, 2 cores; profile standard; checkout\/uniform\)\n/);
    expect(r.stdout).toMatch(/budget 30 min: 3 trials each of node-postgres, statefun, about \d+ min from the kept trials' times/);
  });

  it("names the flag and what it allows when it cannot plan", () => {
    const noCampaign = sfbench("reproduce", "--budget", "30m");
    expect(noCampaign.status).toBe(2);
    expect(noCampaign.stderr).toContain("--campaign DIR is required");
    const badBudget = sfbench("reproduce", "--campaign", KEPT_DIR, "--budget", "soon");
    expect(badBudget.status).toBe(2);
    expect(badBudget.stderr).toContain('--budget must be a time like 30m, 1h30m, 90s or a number of minutes, got "soon"');
    const small = sfbench("reproduce", "--campaign", KEPT_DIR, "--budget", "2m");
    expect(small.status).toBe(2);
    expect(small.stderr).toMatch(/a budget of 2 min is too small: the reference node-postgres alone needs about \d+ min/);
    const dir = mkdtempSync(join(tmpdir(), "sfbench-reproduce-"));
    writeFileSync(join(dir, "campaign.json"), JSON.stringify({ kind: "campaign" }));
    const notCampaign = sfbench("reproduce", "--campaign", dir, "--dry-run");
    expect(notCampaign.status).toBe(2);
    expect(notCampaign.stderr).toMatch(/--campaign: .*campaign\.json is not a campaign document: /);
    const missing = sfbench("reproduce", "--campaign", join(dir, "nowhere"), "--dry-run");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("--campaign: no campaign document at");
  });
});
