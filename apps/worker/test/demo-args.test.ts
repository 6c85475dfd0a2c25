/** The demo's flags (scripts/demo.ts): a choice it cannot take ends it with exit 2 and the allowed values, before anything starts. */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

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
    expect(r.stderr).toContain("(allowed: --targets a,b  --trials N  --workloads a,b  --with-image)");
  });
});
