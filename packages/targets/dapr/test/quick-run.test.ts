/**
 * A quick run, as `sfbench run --target dapr --profile quick` does it
 * (checkout, uniform): started by provider-local, measured by k6, audited.
 * The result document is valid and the audit finds no anomaly.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { manifestDigest, parseResult } from "@sfbench/core";
import { costPids, findTarget, isAlive, startTarget, stopTarget, storageFingerprint } from "@sfbench/provider-local";
import { k6Path, paths } from "@sfbench/services";
import { aliveCheck, runBenchmark } from "@sfbench/engine";
import { TARGET } from "./helpers.ts";

const PORT = 18952;

afterAll(async () => {
  await stopTarget(TARGET);
});

describe("a quick run", () => {
  it("writes a valid result with no anomaly on checkout", { timeout: 600_000 }, async () => {
    await stopTarget(TARGET);
    const { manifest } = findTarget(TARGET);
    const started = await startTarget(TARGET, { port: PORT });
    const dir = mkdtempSync(join(tmpdir(), "dapr-quick-"));
    const { doc } = await runBenchmark({
      target: { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) },
      baseUrl: started.url,
      k6: await k6Path(),
      profile: "quick",
      cells: [{ workload: "checkout", distribution: "uniform" }],
      seed: 1,
      repoRoot: paths.root,
      resultsDir: join(dir, "results"),
      rawRoot: join(dir, "raw"),
      // the target's processes and its own PostgreSQL server
      targetPids: () => costPids(started),
      storage: storageFingerprint(started),
      checkAlive: aliveCheck(() => started.exited() ?? (isAlive(started.pid) ? undefined : "an unknown code")),
    });
    expect(doc.error).toBeUndefined();
    expect(doc.status).not.toBe("failed");
    expect(parseResult(doc).ok).toBe(true);
    const cell = doc.cells.find((c) => c.workload === "checkout")!;
    expect(cell.anomalies).toBeDefined();
    expect(cell.anomalies!.total, JSON.stringify(cell.anomalies)).toBe(0);
    expect(cell.maxThroughput).toBeDefined();
  });
});
