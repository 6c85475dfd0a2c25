/**
 * A quick benchmark run of the checkout workload, the way `sfbench run
 * --target restate --profile quick` does it: real k6, real Kafka for the span
 * lines, the audit at the end. The result must be valid, with 0 anomalies
 * and a breakdown that shows the Virtual Objects' function time.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifestDigest, parseResult, type ResultDocument } from "@sfbench/core";
import { findTarget, isAlive } from "@sfbench/provider-local";
import { k6Path, kafkaBrokers, paths, up } from "@sfbench/services";
import { aliveCheck, runBenchmark } from "@sfbench/engine";
import { NAME, start, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;

beforeAll(async () => {
  await up(["kafka", "k6"]);
  t = await start(18616, { trace: true });
});
afterAll(async () => {
  await t?.stop();
});

describe("sfbench run --profile quick, checkout x uniform", () => {
  let doc: ResultDocument;

  it("writes a valid, completed result", { timeout: 400_000 }, async () => {
    const { manifest } = findTarget(NAME);
    const dir = mkdtempSync(join(tmpdir(), "sfbench-restate-run-"));
    const pid = t.started.pid;
    const outcome = await runBenchmark({
      target: { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) },
      baseUrl: t.url,
      k6: await k6Path(),
      profile: "quick",
      cells: [{ workload: "checkout", distribution: "uniform" }],
      seed: 1,
      repoRoot: paths.root,
      resultsDir: join(dir, "results"),
      rawRoot: join(dir, "raw"),
      targetPids: () => [pid],
      checkAlive: aliveCheck(() => t.started.exited() ?? (isAlive(pid) ? undefined : "an unknown code")),
      systemVersion: `${manifest.system} ${manifest.version}`,
      trace: { logFile: t.started.log, brokers: kafkaBrokers() },
    });
    doc = outcome.doc;
    expect(parseResult(doc).ok).toBe(true);
    expect(doc.status, JSON.stringify(doc.error)).toBe("completed");
  });

  // Correctness, not speed: on a loaded machine the ramp may find no sustainable step (the cell is then
  // marked not valid as a stable-load figure), but the audit of what ran must find nothing wrong.
  it("has 0 anomalies on checkout, measured steps and the cost of the target's processes", () => {
    const cell = doc.cells[0]!;
    expect(cell.anomalies, JSON.stringify(cell.anomalies?.examples)).toMatchObject({ total: 0 });
    expect(cell.maxThroughput!.steps.length).toBeGreaterThan(0);
    expect(cell.stable!.latency.count).toBeGreaterThan(0);
    expect(cell.cost!.targetCpuSeconds).toBeGreaterThan(0);
  });

  it("breaks the latency down into gateway and the Virtual Objects' function time", () => {
    const breakdown = doc.cells[0]!.breakdown as { overall?: { functionMs: Record<string, number>; count: number } };
    expect(breakdown.overall!.count).toBeGreaterThan(0);
    expect(Object.keys(breakdown.overall!.functionMs)).toEqual(expect.arrayContaining(["cart", "product", "user", "order"]));
  });
});
