/**
 * bench:repeatability end to end, short: two real campaigns through the CLI
 * (quick profile, 2 trials each) with real PostgreSQL and k6, compared. Only
 * node-postgres's checkout/uniform cell, to keep the test to a few short
 * runs; the comparison of several systems is covered by harness-units.test.ts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseCampaign } from "@sfbench/core";
import type { RepeatabilityResult } from "../src/repeatability.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const TIMEOUT_MS = 1_500_000;
const bench = (args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", "packages/bench/src/repeatability.ts", ...args], { cwd: REPO, encoding: "utf8", timeout: TIMEOUT_MS });

describe("npm run bench:repeatability", () => {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-repeatability-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs two campaigns and prints both medians, their difference and both intervals against the goals", { timeout: TIMEOUT_MS }, () => {
    const json = join(dir, "figures.json");
    // on a shared machine every trial may be busy: repeating them would only double the test (the worker's campaign test repeats one)
    const args = ["--quick", "--targets", "node-postgres", "--trials", "2", "--distribution", "uniform", "--busy-repeats", "0"];
    const r = bench([...args, "--results", dir, "--json", json]);
    expect(r.status, r.stderr.slice(-3000)).toBe(0);
    expect(r.stdout).toMatch(
      /^== repeatability: sfbench campaign --targets node-postgres --trials 2 --profile quick --distribution uniform --busy-repeats 0 --reference node-postgres \(twice\)/,
    );
    expect(r.stdout).toMatch(/medians within 10\.0%\s+intervals within \+-10\.0%/);
    expect(r.stdout).toMatch(/\ncheckout\/uniform\s+node-postgres\s+/);
    const result = JSON.parse(readFileSync(json, "utf8")) as RepeatabilityResult;
    expect(result.systems).toHaveLength(1);
    const folders = readdirSync(join(dir, "campaigns")).sort();
    expect(folders).toHaveLength(2);
    const campaigns = folders.map((f) => {
      const parsed = parseCampaign(JSON.parse(readFileSync(join(dir, "campaigns", f, "campaign.json"), "utf8")));
      if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
      return parsed.campaign;
    });
    // both campaigns measured: a median each, and an interval from the two trials, unless a trial
    // gave no figure, which a loaded machine may cause (a stable phase over its latency bound); then
    // the report names that trial and its reason, and the interval goal is missed, not passed
    const trials = campaigns
      .flatMap((c, i) =>
        c.trials.map((t) => `campaign ${i + 1} round ${t.round}: ${t.status}${t.noise?.busy ? " (busy)" : ""} ${t.notes.join("; ") || "counts"}`),
      )
      .join("\n");
    const system = result.systems[0]!;
    for (const m of system.medians) expect(m, trials).toBeGreaterThan(0);
    for (const [i, h] of system.halfWidths.entries()) {
      if (h !== null) continue;
      const missing = result.noFigure.filter((x) => x.campaign === i + 1);
      expect(missing, trials).toHaveLength(1);
      // only what a loaded machine explains: never an audit's anomaly or a failed run
      expect(missing[0]!.why).toMatch(/^checkout\/uniform: (stable phase: |ramp step at \d+\/s: .*the knee may be the generator's)/);
      expect(r.stdout).toContain(`campaign ${i + 1}: node-postgres round ${missing[0]!.round} gave no figure: ${missing[0]!.why}`);
      expect(system.intervalPass).toBe(false);
    }
    for (const [i, f] of folders.entries()) {
      const campaign = campaigns[i]!;
      expect(campaign.profile).toBe("quick");
      expect(campaign.trialsPerTarget).toBe(2);
      expect(campaign.trials).toHaveLength(2);
      expect(campaign.busyRepeated).toBe(0);
      // each counted trial's document is in the campaign's folder
      for (const t of campaign.trials) expect(readFileSync(join(dir, "campaigns", f, t.document), "utf8")).toContain(t.runId);
    }
  });

  it("exits 2 naming the flag for an unknown one", () => {
    const r = bench(["--fast"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Unknown option '--fast'/);
  });

  it("exits 2 naming the busy repeats allowed", () => {
    const r = bench(["--busy-repeats", "4"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--busy-repeats: expected an integer in 0..3, got "4"');
  });

  it("exits 2 naming the trials allowed for a count that gives no interval", () => {
    for (const bad of ["1", "2.5", "21"]) {
      const r = bench(["--trials", bad]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toContain(`--trials: expected an integer in 2..20, got ${JSON.stringify(bad)}`);
    }
  });

  it("--compare makes the comparison again from two kept campaigns, running nothing", () => {
    // the first pair of back-to-back campaigns in docs/measurements.md, from their documents in results/
    const json = join(dir, "kept.json");
    const r = bench(["--compare", "945d697b,20261127-032721-1b0445de", "--json", json]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^== repeatability: kept campaigns 945d697b \(3 trials, 2026-11-27 02:5\d\) and 20261127-032721-1b0445de \(3 trials, 2026-11-27 03:\d\d\), standard\n/,
    );
    expect(r.stdout).toMatch(/\ncheckout\/uniform\s+node-postgres\s+91\s+88\s+3\.4%\s+11\.5%\s+54\.9%\s+PASS\s+MISS\n/);
    expect(r.stdout).toMatch(/\ncheckout\/uniform\s+statefun\s+-\s+69\s+-\s+-\s+422\.9%\s+MISS\s+MISS\n/);
    const result = JSON.parse(readFileSync(json, "utf8")) as RepeatabilityResult;
    expect(result.source).toBe("kept");
    expect(result.campaigns[1]).toMatch(/results\/campaigns\/20261127-032721-1b0445de\/campaign\.json$/);
  });

  it("--compare exits 2 naming what is wrong: an unknown campaign, one of another profile, a flag that would run", () => {
    const unknown = bench(["--compare", "945d697b,nope"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/--compare: no campaign "nope" in \S+\/results\/campaigns; kept: df7ee1d4, da4ee92a, 945d697b/);
    const profiles = bench(["--compare", "df7ee1d4,945d697b"]);
    expect(profiles.status).toBe(2);
    expect(profiles.stderr).toMatch(
      /--compare: df7ee1d4 is quick throughput over checkout\/uniform, 945d697b standard throughput over checkout\/uniform: compare campaigns of one profile/,
    );
    const one = bench(["--compare", "945d697b"]);
    expect(one.status).toBe(2);
    expect(one.stderr).toContain('--compare: expected two kept campaigns, A,B, got "945d697b"');
    const mixed = bench(["--compare", "945d697b,1b0445de", "--trials", "5"]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toContain("--compare runs nothing: --trials would be ignored");
  });

  it("exits 2 naming the distributions allowed for one it does not know", () => {
    const r = bench(["--distribution", "pareto"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--distribution: expected one of uniform, zipf, both, got "pareto"/);
  });
});
