/**
 * bench:profiles end to end, short: real node-postgres runs (seed, ramp,
 * traced stable phase at a fixed rate, audit) under a private SFBENCH_HOME,
 * with real k6 and Kafka; one configuration with the core split, one with the
 * generator and the target on one core.
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
  it("runs each configuration as a real run at the fixed rate and prints the table", { timeout: 600_000 }, () => {
    const json = join(mkdtempSync(join(tmpdir(), "sfbench-profiles-test-")), "figures.json");
    const r = bench(["--quick", "--only", "quick,standard-1core", "--stable-s", "3", "--rate", "40", "--json", json]);
    expect(r.status, r.stderr).toBe(0);
    // how far the quick ramp gets depends on the machine and its load: only the row's shape is checked
    expect(r.stdout).toMatch(/\| quick \| 1000 products, quick ramp, 3 s stable \| \d+, [\d.]+\/s \|/);
    expect(r.stdout).toMatch(/\| standard-1core \| .* \| 40\/s \|/);
    const { runs } = JSON.parse(readFileSync(json, "utf8")) as { runs: ProfileRun[] };
    expect(runs.map((x) => x.mode)).toEqual(["quick", "standard-1core"]);
    for (const x of runs) {
      expect(x.offered).toBe(40);
      expect(x.p50).toBeGreaterThan(0);
      expect(x.stableS).toBe(3);
    }
    expect(runs[1]!.products).toBe(5000);
    // the standard knee search ran before the stable phase (its resolution is null only when nothing failed up to the top)
    expect(runs[1]!.rampSteps).toBeGreaterThanOrEqual(3);
    if (runs[1]!.kneeResolution !== null) expect(runs[1]!.kneeResolution).toBeGreaterThan(0);
    if (cpus().length >= 2) {
      // split in the one, shared in the other
      expect(runs[0]!.cpuSplit).toBeDefined();
      expect(runs[1]!.cpuSplit).toBeUndefined();
    }
  });

  it("exits 2 naming the flag for an unknown configuration", () => {
    const r = bench(["--only", "quick,fast"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--only: unknown "fast"; allowed: quick, quick-30s/);
  });
});
