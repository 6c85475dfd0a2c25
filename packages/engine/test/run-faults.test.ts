/**
 * A target that dies mid-run: the run fails with "target exited with code 7
 * during <stage>" and the last lines of its log, keeps the raw data gathered so
 * far and the end of the target's log, and leaves no k6 behind.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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
  it("fails naming the exit code, the stage and its log's end, keeps raw data and the log, leaves no process", { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-dying-"));
    const log = join(dir, "dying.log");
    // a log started by an earlier run: what is kept is its end
    writeFileSync(log, "x".repeat(2 * 1024 * 1024) + "\nstarted\n");
    const child = spawn(process.execPath, ["--import", "tsx", fixture], {
      env: { ...process.env, DIE_AFTER: "60" },
      stdio: ["ignore", "pipe", openSync(log, "a")],
    });
    let exited: string | undefined;
    child.on("exit", (code, signal) => (exited = code !== null ? `code ${code}` : `signal ${signal}`));
    const port = await new Promise<number>((resolve) => child.stdout!.once("data", (d: Buffer) => resolve(JSON.parse(d.toString()).port)));
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
      checkAlive: aliveCheck(() => exited, log),
      targetLogs: () => [log, join(dir, "never-written.log")],
      pin: false,
    });
    expect(doc.status).toBe("failed");
    expect(doc.error!.message).toMatch(
      /^target exited with code 7 during ramp \((warmup|coarse) step \d+ at [\d.]+\/s\); last lines of its log:\n(.*\n)*out of file descriptors after \d+ checkouts$/,
    );
    // the end of its log is kept with the raw data, from a whole line on; a log never written is left out
    expect(doc.rawData.files).toContain("target-logs/dying.log");
    expect(doc.rawData.files.filter((f) => f.startsWith("target-logs/"))).toHaveLength(1);
    const kept = readFileSync(join(doc.rawData.dir, "target-logs/dying.log"), "utf8");
    expect(kept).toMatch(/^started\n(.*\n)*out of file descriptors after \d+ checkouts\n$/);
    expect(kept.length).toBeLessThanOrEqual(1024 * 1024);
    expect(doc.error!.stage).toMatch(/^ramp/);
    expect(parseResult(doc).ok).toBe(true);
    expect(existsSync(file)).toBe(true);
    // the partial raw data of the step it died in is kept
    expect(doc.rawData.files.some((f) => f.startsWith("checkout-uniform-ramp-") && f.endsWith(".csv.gz"))).toBe(true);
    for (const f of doc.rawData.files) expect(existsSync(join(doc.rawData.dir, f)), f).toBe(true);
    expect(readdirSync(join(dir, "results", "dying"))).toHaveLength(1);
    // nothing of the run is left: no k6 among this process's descendants
    expect(
      descendants([process.pid])
        .filter((p) => p.pid !== process.pid)
        .map((p) => p.pid),
    ).not.toContain(child.pid);
  });
});

describe("a run interrupted by its operator", () => {
  it("kills k6 at once and ends the run as interrupted (not failed), naming the stage and the reason", { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", fixture], {
      env: { ...process.env, DIE_AFTER: "1000000" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const port = await new Promise<number>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(JSON.parse(d.toString()).port)));
    const dir = mkdtempSync(join(tmpdir(), "sfbench-interrupted-"));
    const controller = new AbortController();
    let abortedAt = 0;
    try {
      const { doc, file } = await runBenchmark({
        target: { name: "interrupted", version: "0.0.1", system: "Fixture", manifestDigest: `sha256:${"a".repeat(64)}` },
        baseUrl: `http://127.0.0.1:${port}`,
        k6: await k6Path(),
        // 8 s steps: an interruption that waited for the step would take that long
        profile: "standard",
        cells: [{ workload: "checkout", distribution: "uniform" }],
        seed: 3,
        repoRoot: process.cwd(),
        resultsDir: join(dir, "results"),
        rawRoot: join(dir, "raw"),
        targetPids: () => [child.pid!],
        checkAlive: () => {},
        pin: false,
        signal: controller.signal,
        // interrupt once the first ramp step's k6 is running and has sent requests
        onProgress: (e) => {
          if (!abortedAt && e.phase === "ramp" && (e.live?.requests ?? 0) > 0) {
            abortedAt = performance.now();
            controller.abort("the worker was stopped (SIGTERM)");
          }
        },
      });
      const tookMs = performance.now() - abortedAt;
      expect(abortedAt).toBeGreaterThan(0);
      expect(doc.status).toBe("interrupted");
      expect(doc.error!.stage).toMatch(/^ramp/);
      expect(doc.error!.message).toMatch(/^interrupted during ramp \((warmup|coarse) step \d+ at [\d.]+\/s\): the worker was stopped \(SIGTERM\)$/);
      expect(doc.cells).toEqual([]);
      expect(parseResult(doc).ok).toBe(true);
      expect(existsSync(file)).toBe(true);
      // k6 was killed, not left to finish its 8 s step
      expect(tookMs).toBeLessThan(6_000);
      expect(doc.rawData.files.filter((f) => f.includes("-ramp-") && f.endsWith(".csv.gz"))).toEqual(["checkout-uniform-ramp-0.csv.gz"]);
      expect(descendants([process.pid]).filter((p) => p.pid !== process.pid && p.pid !== child.pid)).toEqual([]);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
