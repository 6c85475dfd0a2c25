/**
 * A target that dies mid-run: the run fails with "target exited with code 7
 * during <stage>", keeps the raw data gathered so far, and leaves no k6 behind.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseResult } from "@sfbench/core";
import { k6Path } from "@sfbench/services";
import { aliveCheck } from "../src/experiment/cell.ts";
import { runBenchmark } from "../src/experiment/run.ts";
import { descendants } from "../src/cost/proc.ts";

const fixture = fileURLToPath(new URL("./fixtures/dying-target.ts", import.meta.url));

describe("a target that dies during the run", () => {
  it("fails the run naming the exit code and the stage, keeps partial raw data, leaves no process", { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", fixture], { env: { ...process.env, DIE_AFTER: "60" }, stdio: ["ignore", "pipe", "inherit"] });
    let exited: string | undefined;
    child.on("exit", (code, signal) => (exited = code !== null ? `code ${code}` : `signal ${signal}`));
    const port = await new Promise<number>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(JSON.parse(d.toString()).port)));
    const dir = mkdtempSync(join(tmpdir(), "sfbench-dying-"));
    const { doc, file } = await runBenchmark({
      target: { name: "dying", version: "0.0.1", system: "Fixture", manifestDigest: `sha256:${"a".repeat(64)}` },
      baseUrl: `http://127.0.0.1:${port}`,
      k6: await k6Path(),
      profile: "quick",
      cells: [{ workload: "checkout", distribution: "uniform" }],
      seed: 3,
      repoRoot: process.cwd(),
      resultsDir: join(dir, "results"),
      rawRoot: join(dir, "raw"),
      targetPids: () => (exited ? [] : [child.pid!]),
      checkAlive: aliveCheck(() => exited),
      pin: false,
    });
    expect(doc.status).toBe("failed");
    expect(doc.error!.message).toMatch(/^target exited with code 7 during ramp \(coarse step at \d+\/s\)$/);
    expect(doc.error!.stage).toMatch(/^ramp/);
    expect(parseResult(doc).ok).toBe(true);
    expect(existsSync(file)).toBe(true);
    // the partial raw data of the step it died in is kept
    expect(doc.rawData.files.some((f) => f.startsWith("checkout-uniform-ramp-") && f.endsWith(".csv.gz"))).toBe(true);
    for (const f of doc.rawData.files) expect(existsSync(join(doc.rawData.dir, f)), f).toBe(true);
    expect(readdirSync(join(dir, "results", "dying"))).toHaveLength(1);
    // nothing of the run is left: no k6 among this process's descendants
    expect(descendants([process.pid]).filter((p) => p.pid !== process.pid).map((p) => p.pid)).not.toContain(child.pid);
  });
});
