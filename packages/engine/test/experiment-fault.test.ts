/**
 * The fault experiment through the whole pipeline (runBenchmark with the
 * local provider's target control), with real processes and k6: a kill -9 in
 * the middle of the load, the target started again with its data, then the
 * audit. The fragile fixture (SPEC 2 in memory) loses what it had and the
 * audit says so; node-postgres (its own durable PostgreSQL) loses nothing.
 * And a target given by URL is told that it cannot be killed, not skipped.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseResult, type ResultDocument } from "@sfbench/core";
import { localTargetControl, startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { TargetBusyError } from "@sfbench/catalogue";
import { k6Path, paths } from "@sfbench/services";
import { afterEach, describe, expect, it } from "vitest";
import { runBenchmark } from "../src/experiment/run.ts";

const providerFixtures = fileURLToPath(new URL("../../providers/local/test/fixtures", import.meta.url));
const started: string[] = [];

afterEach(async () => {
  for (const name of started.splice(0)) await stopTarget(name);
});

async function start(name: string, port: number, targetsRoot?: string): Promise<StartedTarget> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    try {
      const t = await startTarget(name, { port, ...(targetsRoot ? { targetsRoot } : {}) });
      started.push(name);
      return t;
    } catch (e) {
      if (!(e instanceof TargetBusyError) || performance.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

async function faultRun(t: StartedTarget, experiment: "fault" | "recovery" = "fault", withControl = true): Promise<ResultDocument> {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-fault-"));
  const control = localTargetControl(t);
  const { doc } = await runBenchmark({
    target: { name: t.name, version: "0.0.0", system: t.name, manifestDigest: `sha256:${"0".repeat(64)}` },
    baseUrl: t.url,
    k6: await k6Path(),
    profile: "quick",
    experiment,
    cells: [{ workload: "checkout", distribution: "uniform" }],
    seed: 3,
    repoRoot: paths.root,
    resultsDir: join(dir, "results"),
    rawRoot: join(dir, "raw"),
    targetPids: () => control.pids(),
    checkAlive: (stage) => {
      const how = control.exited();
      if (how) throw new Error(`target exited with ${how} during ${stage}`);
    },
    pin: false,
    ...(withControl ? { control } : {}),
  });
  expect(parseResult(doc).ok).toBe(true);
  return doc;
}

describe("the fault experiment", () => {
  it("kills the fragile in-memory target mid-load, starts it again, and the audit finds what it lost", { timeout: 300_000 }, async () => {
    const doc = await faultRun(await start("fragile", 19660, providerFixtures));
    expect(doc.status, doc.error?.message).toBe("completed");
    const cell = doc.cells[0]!;
    const f = cell.fault!;
    expect(f.kill).toMatchObject({ node: 0, nodes: 1, signal: "SIGKILL", restarted: true });
    expect(f.kill.restartHealthyAfterS).toBeGreaterThan(0);
    // the kill is on the cell's series clock, after the ramp's steps
    expect(f.kill.atS).toBeGreaterThan(cell.maxThroughput!.steps.length * 2);
    expect(
      cell.series.some((p) => p.t >= Math.floor(f.kill.atS)),
      `kill at ${f.kill.atS}, series ${cell.series.map((p) => p.t).join(",")}`,
    ).toBe(true);
    // its products and users are gone after the restart: the audit counts it
    expect(cell.anomalies!.total).toBeGreaterThan(0);
    expect(cell.stable, "a fault phase's latency is not a stable-load figure").toBeUndefined();
  });

  it(
    "kills node-postgres mid-load: it comes back with everything (no anomaly), and the phase says how long it took or why it could not tell",
    { timeout: 300_000 },
    async () => {
      const doc = await faultRun(await start("node-postgres", 19661));
      expect(doc.status, doc.error?.message).toBe("completed");
      const cell = doc.cells[0]!;
      const f = cell.fault!;
      expect(f.kill.restarted).toBe(true);
      expect(f.kill.restartHealthyAfterS, f.kill.restartError).not.toBeNull();
      // how soon throughput is back depends on the machine's load: the phase measures it, or says why it could not
      if (f.recoveredAfterS === null) expect(f.notRecovered).toMatch(/after the kill/);
      else expect(f.notRecovered).toBeUndefined();
      expect(f.baselineRate).toBeGreaterThan(0);
      expect(cell.anomalies!.total, JSON.stringify(cell.anomalies)).toBe(0);
    },
  );

  it("records a target it cannot kill (given by URL, no control) as not supported, with no cells", { timeout: 120_000 }, async () => {
    const doc = await faultRun(await start("fragile", 19662, providerFixtures), "fault", false);
    expect(doc.status).toBe("completed");
    expect(doc.cells).toEqual([]);
    expect(doc.resilience?.unsupported).toEqual([{ experiment: "fault", reason: expect.stringContaining("cannot kill, restart or add its processes") }]);
  });
});
