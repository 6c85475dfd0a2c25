/** The demo's flags (scripts/demo.ts): a choice it cannot take ends it with exit 2 and the allowed values, before anything starts. */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { listTargets } from "@sfbench/catalogue";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

const demo = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", "scripts/demo.ts", ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });

describe("npm run demo's flags", () => {
  it("refuses a workload it does not know, naming the workloads", () => {
    const r = demo("--workloads", "checkout,pareto");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('demo: --workloads: expected a comma-separated list of checkout, analytics, contention, got "checkout,pareto"');
  });

  it("refuses an empty list of workloads, a target that is not bundled and a trial count out of range", () => {
    expect(demo("--workloads", " , ").stderr).toMatch(/--workloads: expected a comma-separated list of/);
    const target = demo("--targets", "node-postgres,nope");
    expect(target.status).toBe(2);
    expect(target.stderr).toMatch(/--targets: nope is not bundled \(bundled: .*node-postgres/);
    const trials = demo("--trials", "0");
    expect(trials.status).toBe(2);
    expect(trials.stderr).toContain('--trials must be a whole number from 1 to 20, got "0"');
  });

  it("names its flags for one it does not have", () => {
    const r = demo("--profile", "quick");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("(allowed: --budget TIME  --full  --targets a,b  --trials N  --workloads a,b  --with-image  --dry-run)");
  });

  it("sizes the campaign to the budget from the kept campaigns, says so before anything starts, and starts nothing with --dry-run", () => {
    const r = demo("--dry-run", "--budget", "30m");
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^== the campaign within --budget 30 min /);
    const [, chosen, minutes] = /^ {2}3 trials each of (.+) on checkout \/ uniform: about (\d+) min, estimated from the kept campaigns/.exec(lines[1]!)!;
    expect(chosen!.split(", ")[0]).toBe("node-postgres");
    expect(Number(minutes)).toBeLessThanOrEqual(30);
    expect(lines[2]).toMatch(/^ {2}node-postgres +about \d+ min a trial \(kept campaign [0-9a-f]{8}, \d{4}-\d\d-\d\d, .+\) \(the reference\)$/);
    // every bundled system is either in the campaign or named with why it is not
    expect(lines.slice(2)).toHaveLength(listTargets().length);
    expect(r.stdout).not.toContain("== services");
  });

  it("refuses a budget the reference alone does not fit, and a budget beside --full", () => {
    const small = demo("--dry-run", "--budget", "1m");
    expect(small.status).toBe(2);
    expect(small.stderr).toMatch(/^demo: --budget: a budget of 60 s is too small: the reference node-postgres alone needs about \d+ min/);
    const both = demo("--dry-run", "--full", "--budget", "2h");
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("--full runs every system on both workloads whatever the time: it takes no --budget");
    const full = demo("--dry-run", "--full");
    expect(full.stdout).toContain("== the campaign: every bundled system, 3 trials each, checkout,analytics: no time budget");
  });
});
