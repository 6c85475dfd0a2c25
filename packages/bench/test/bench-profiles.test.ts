/**
 * bench:profiles end to end, short: real node-postgres runs (seed, ramp,
 * traced stable phase, audit) under a private SFBENCH_HOME, with real k6 and
 * Kafka; one configuration at the fixed rate, one at 80% of the knee its own
 * ramp found. The standard profile's configurations run the standard knee
 * search (minutes each): their pinning is engine's pin.test.ts, their search
 * the engine's and the CLI's tests.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ProfileRun } from "../src/profiles.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const bench = (args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", "packages/bench/src/profiles.ts", ...args], { cwd: REPO, encoding: "utf8", timeout: 600_000 });

describe("npm run bench:profiles", () => {
  it("runs each configuration as a real run, at the fixed rate or its own, and prints the table", { timeout: 600_000 }, () => {
    const json = join(mkdtempSync(join(tmpdir(), "sfbench-profiles-test-")), "figures.json");
    const r = bench(["--quick", "--only", "quick,quick-own", "--stable-s", "3", "--rate", "40", "--json", json]);
    expect(r.status, r.stderr).toBe(0);
    // how far the quick ramp gets depends on the machine and its load: only the row's shape is checked
    expect(r.stdout).toMatch(/\| quick \| 1000 products, quick ramp, 3 s stable \| \d+, [\d.]+\/s \|/);
    expect(r.stdout).toMatch(/\| quick-own \| the quick profile as published: 80% of its own knee \| \d+, [\d.]+\/s \| (\d+\/s \(\d+%\)|none) \| [\d.]+\/s \|/);
    const { runs } = JSON.parse(readFileSync(json, "utf8")) as { runs: ProfileRun[] };
    expect(runs.map((x) => x.mode)).toEqual(["quick", "quick-own"]);
    expect(runs[0]!.offered).toBe(40);
    for (const x of runs) {
      expect(x.p50).toBeGreaterThan(0);
      expect(x.stableS).toBe(3);
      expect(x.products).toBe(1000);
      expect(x.rampSteps).toBeGreaterThanOrEqual(2);
    }
    // the published stable rate: 80% of the knee the run's own ramp found
    const own = runs[1]!;
    if (own.knee !== null) expect(Math.abs(own.offered - 0.8 * own.knee)).toBeLessThanOrEqual(1);
    // the core split is every run's (the one-core configurations undo it)
    if (cpus().length >= 2) for (const x of runs) expect(x.cpuSplit).toBeDefined();
  });

  it("exits 2 naming the flag for an unknown configuration", () => {
    const r = bench(["--only", "quick,fast"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--only: unknown "fast"; allowed: quick, quick-30s/);
  });
});
