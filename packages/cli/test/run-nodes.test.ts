/**
 * Targets that run as several processes (target.json nodes), through the real
 * CLI: the scalability experiment (`--nodes 1,2`: one run per node count, the
 * last document holding the points) and the scale-up experiment (a node
 * added during load) on node-postgres, whose nodes share its own PostgreSQL
 * behind sfbench's balancer. Bad node counts exit 2 naming the flag.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseResult, type ResultDocument } from "@sfbench/core";
import { sfbench } from "./helpers.ts";

function results(dir: string, target: string): ResultDocument[] {
  return readdirSync(join(dir, target))
    .sort()
    .map((f) => {
      const parsed = parseResult(readFileSync(join(dir, target, f), "utf8"));
      if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
      return parsed.result;
    });
}

describe("sfbench run with nodes", () => {
  it("--nodes 1,2: one document per node count, environment.nodes set, the last one with the scalability points", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-nodes-"));
    const r = await sfbench([
      "run",
      "--target",
      "node-postgres",
      "--nodes",
      "1,2",
      "--workload",
      "checkout",
      "--distribution",
      "uniform",
      "--profile",
      "quick",
      "--no-trace",
      "--results",
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const docs = results(dir, "node-postgres");
    expect(docs.map((d) => d.environment.nodes)).toEqual([1, 2]);
    expect(docs.every((d) => d.status === "completed")).toBe(true);
    // both runs of the one process split the same cores: the first run's pinning of itself does not shrink the second's
    if (cpus().length >= 2) {
      expect(docs[0]!.environment.cpuSplit).toBeDefined();
      expect(docs[1]!.environment.cpuSplit).toEqual(docs[0]!.environment.cpuSplit);
      expect(docs[1]!.environment.cores).toBe(docs[0]!.environment.cores);
    }
    const s = docs[1]!.resilience!.scalability!;
    expect(s).toMatchObject({ environment: "local", routing: "balancer" });
    expect(s.points.map((p) => p.nodes)).toEqual([1, 2]);
    expect(s.points[0]!.speedup).toBeCloseTo(1, 5);
    expect(s.points[1]!.maxThroughput).toBe(docs[1]!.cells[0]!.maxThroughput!.maxMovingAvg10s);
    expect(r.stdout).toMatch(/scalability \(local, sfbench's balancer\)/);
    // cost counts every node (and the target's PostgreSQL), and the audit holds across nodes
    expect(docs[1]!.cells[0]!.anomalies!.total).toBe(0);
  }, 300_000);

  it("--experiment scale-up: a node joins during load above one node's knee, and the phase says when it showed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-scaleup-"));
    const r = await sfbench([
      "run",
      "--target",
      "node-postgres",
      "--experiment",
      "scale-up",
      "--workload",
      "checkout",
      "--distribution",
      "uniform",
      "--profile",
      "quick",
      "--no-trace",
      "--results",
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [doc] = results(dir, "node-postgres");
    const u = doc!.cells[0]!.scaleUp!;
    expect(u).toMatchObject({ nodesBefore: 1, nodesAfter: 2 });
    expect(u.nodeHealthyAfterS).toBeGreaterThan(0);
    expect(u.baselineRate).toBeGreaterThan(0);
    expect(doc!.cells[0]!.anomalies!.total).toBe(0);
    expect(r.stdout).toMatch(/scale-up checkout\/uniform: 1 -> 2 nodes/);
  }, 300_000);

  // each row is one short CLI process that only reads its flags: the rows run side by side
  it.concurrent.each([
    [["--nodes", "0"], /--nodes: 0 is not a node count node-postgres supports \(allowed: 1 to 4\)/],
    [["--nodes", "1,9"], /--nodes: 9 is not a node count/],
    [["--nodes", "2,2"], /each node count once/],
  ])("sfbench run --target node-postgres %j exits 2 naming the flag", async (args, message) => {
    const r = await sfbench(["run", "--target", "node-postgres", ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it("--nodes with --url exits 2: sfbench starts the nodes", async () => {
    const r = await sfbench(["run", "--url", "http://127.0.0.1:1", "--nodes", "2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--nodes needs --target NAME/);
  });
});
