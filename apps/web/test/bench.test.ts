/** `npm run bench:web -- --quick` seeds, serves and prints p50/p95 per page (the full run is 1,000 systems x 10 runs). */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appDir } from "../scripts/server.ts";

interface Summary {
  seeded: { systems: number; runs: number; cells: number; documents: number };
  timings: Array<{ name: string; requests: number; p50: number; p95: number }>;
  uncached: Array<{ name: string; p95: number }>;
}

describe("bench:web", () => {
  it("runs --quick: seeds systems x runs, measures leaderboard and compare, prints p50/p95", () => {
    const tsx = path.join(appDir, "../../node_modules/tsx/dist/cli.mjs");
    const r = spawnSync(process.execPath, [tsx, "scripts/bench.ts", "--quick", "--systems", "30", "--runs", "10", "--requests", "15", "--json"], {
      cwd: appDir,
      encoding: "utf8",
      timeout: 480_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    const summary = JSON.parse(lines.at(-1)!) as Summary;
    expect(summary.seeded).toMatchObject({ systems: 30 + 9, runs: 300 + 9 });
    expect(summary.timings.map((t) => t.name)).toEqual(["leaderboard", "leaderboard, filtered + sorted", "compare, 3 systems"]);
    for (const t of [...summary.timings, ...summary.uncached]) expect(t.p95).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/^leaderboard\s+15\s+[\d.]+\s+[\d.]+/m);
    expect(r.stdout).toMatch(/goal p95 <= 100 ms \(as served\): (met|missed by .+)$/m);
  }, 500_000);
});
