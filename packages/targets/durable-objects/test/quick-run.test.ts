/**
 * A quick benchmark run of the checkout workload, the way `sfbench run
 * --target durable-objects --profile quick` does it: real k6, real Kafka for
 * the span lines, the audit at the end. The result must be valid, with 0
 * anomalies and a breakdown that shows the objects' function time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifestDigest, parseResult, type ResultDocument } from "@sfbench/core";
import { findTarget, isAlive } from "@sfbench/provider-local";
import { k6Path, kafkaBrokers, paths, up } from "@sfbench/services";
import { aliveCheck, runBenchmark } from "@sfbench/engine";
import { NAME, start, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;
const dir = mkdtempSync(join(tmpdir(), "sfbench-do-run-"));

beforeAll(async () => {
  await up(["kafka", "k6"]);
  t = await start(18714, { trace: true });
});
afterAll(async () => {
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("sfbench run --profile quick, checkout x uniform", () => {
  let doc: ResultDocument;

  it("writes a valid, completed result", { timeout: 300_000 }, async () => {
    const { manifest } = findTarget(NAME);
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
    // the target's own lines (not its span lines) say whether workerd stalled or died
    const ownLines = () =>
      t
        .log()
        .split("\n")
        .filter((line) => !line.includes('"sfbench":"span"'))
        .slice(-20)
        .join("\n");
    expect(doc.status, `${JSON.stringify(doc.error)}\n${ownLines()}`).toBe("completed");
  });

  it("has 0 anomalies on checkout, and the cost of launcher and workerd", () => {
    const cell = doc.cells[0]!;
    expect(cell.anomalies, JSON.stringify(cell.anomalies?.examples)).toMatchObject({ total: 0 });
    // checkouts without a clear answer (a timeout when the machine is loaded) are resolved by reading their carts and
    // counted among the anomalies only if the cart contradicts the workload: how many there were depends on the load, not asserted
    expect(cell.cost!.targetCpuSeconds).toBeGreaterThan(0);
    // whether the cell is a publishable figure depends on the machine's load, not on the target's correctness: reported, not asserted
    const m = cell.maxThroughput!;
    console.log(
      `quick run: sustainable ${m.sustainableRate}/s, max ${m.maxMovingAvg10s}/s, cell ${cell.valid ? "valid" : `not valid (${cell.invalidReason})`}, ${cell.cost!.coreSecondsPer1000.toFixed(1)} core-s per 1000`,
    );
  });

  it("breaks the latency down into gateway and the objects' function time", () => {
    const breakdown = doc.cells[0]!.breakdown as { overall?: { functionMs: Record<string, number>; count: number } };
    expect(breakdown.overall!.count).toBeGreaterThan(0);
    expect(Object.keys(breakdown.overall!.functionMs)).toEqual(expect.arrayContaining(["cart"]));
  });
});
