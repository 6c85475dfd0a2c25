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
    const r = bench(["--quick", "--targets", "node-postgres", "--trials", "2", "--distribution", "uniform", "--results", dir, "--json", json]);
    expect(r.status, r.stderr.slice(-3000)).toBe(0);
    expect(r.stdout).toMatch(
      /^== repeatability: sfbench campaign --targets node-postgres --trials 2 --profile quick --distribution uniform --reference node-postgres \(twice\)/,
    );
    expect(r.stdout).toMatch(/medians within 10\.0%\s+intervals within \+-10\.0%/);
    expect(r.stdout).toMatch(/\ncheckout\/uniform\s+node-postgres\s+/);
    const result = JSON.parse(readFileSync(json, "utf8")) as RepeatabilityResult;
    expect(result.systems).toHaveLength(1);
    const folders = readdirSync(join(dir, "campaigns"));
    expect(folders).toHaveLength(2);
    for (const f of folders) {
      const parsed = parseCampaign(JSON.parse(readFileSync(join(dir, "campaigns", f, "campaign.json"), "utf8")));
      if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
      expect(parsed.campaign.profile).toBe("quick");
      expect(parsed.campaign.trialsPerTarget).toBe(2);
      // each counted trial's document is in the campaign's folder
      for (const t of parsed.campaign.trials) expect(readFileSync(join(dir, "campaigns", f, t.document), "utf8")).toContain(t.runId);
    }
  });

  it("exits 2 naming the flag for an unknown one", () => {
    const r = bench(["--fast"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Unknown option '--fast'/);
  });

  it("exits 2 naming the trials allowed for a count that gives no interval", () => {
    for (const bad of ["1", "2.5", "21"]) {
      const r = bench(["--trials", bad]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toContain(`--trials: expected an integer in 2..20, got ${JSON.stringify(bad)}`);
    }
  });

  it("exits 2 naming the distributions allowed for one it does not know", () => {
    const r = bench(["--distribution", "pareto"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--distribution: expected one of uniform, zipf, both, got "pareto"/);
  });
});
