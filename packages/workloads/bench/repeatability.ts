/**
 * Repeatability: the same benchmark three times, each through the CLI
 * exactly as a user runs it (`sfbench run --target node-postgres --workload
 * checkout --distribution uniform --profile standard`), each with the target
 * started fresh and stopped after; the figure is the coefficient of variation
 * of the sustainable rate.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ResultDocument } from "@sfbench/core";
import { HarnessError, onInterrupt, runCommand, type CommandResult } from "./lib/children.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(REPO, "packages/cli/bin/sfbench.mjs");

export const REPEATABILITY_GOAL = 0.1;
export const RUNS = 3;
/** when the target is already running (someone else's run), wait this long between tries, this many times */
const BUSY_WAIT_S = 15;
const BUSY_RETRIES = 20;
/** what `sfbench run --target` says when the target, or the port it listens on, is taken */
const BUSY = /is already running|port \d+ on [\d.]+ is in use/;

/** a run of ours has started the target and not finished yet */
let targetStarted = false;

export interface RepeatRun {
  sustainableRate: number | null;
  maxMovingAvg10s: number;
  stableRate: number | null;
  stableP99Ms: number | null;
  valid: boolean;
  /** why the run's cell is not valid (e.g. the generator saturated) */
  invalidReason?: string;
  wallS: number;
  rampRates: number[];
}

export interface RepeatabilityResult {
  command: string;
  runs: RepeatRun[];
  mean: number;
  /** sample standard deviation (n - 1) */
  stddev: number;
  cv: number;
  /** the same for the max 10 s moving average, which is not quantized by the ramp's steps */
  movingAvgCv: number;
  goal: number;
  pass: boolean;
}

export function cv(xs: number[]): { mean: number; stddev: number; cv: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const stddev = xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return { mean, stddev, cv: mean === 0 ? 0 : stddev / mean };
}

export async function repeatability(opts: { quick: boolean; log: (m: string) => void }): Promise<RepeatabilityResult> {
  const profile = opts.quick ? "quick" : "standard";
  const args = ["run", "--target", "node-postgres", "--workload", "checkout", "--distribution", "uniform", "--profile", profile];
  const runs: RepeatRun[] = [];
  // an interrupted `sfbench run` leaves the target it started up: take it down (only if this harness's run started it)
  const unregister = onInterrupt(async () => {
    if (targetStarted) await runCommand(process.execPath, [CLI, "target", "down", "node-postgres"], { cwd: REPO, timeoutMs: 30_000 });
  });
  try {
    return await measure(args, runs, opts.log);
  } finally {
    unregister();
  }
}

async function measure(args: string[], runs: RepeatRun[], log: (m: string) => void): Promise<RepeatabilityResult> {
  const opts = { log };
  for (let i = 1; i <= RUNS; i++) {
    const results = mkdtempSync(join(tmpdir(), "sfbench-repeat-"));
    try {
      opts.log(`repeatability: run ${i}/${RUNS}: sfbench ${args.join(" ")}`);
      let started = performance.now();
      let r: CommandResult;
      let killedOnce = false;
      for (let wait = 0; ; wait++) {
        started = performance.now();
        let pending = "";
        let startedTarget = false;
        r = await runCommand(process.execPath, [CLI, ...args, "--results", results, "--json"], {
          cwd: REPO,
          onStderr: (text) => {
            pending += text;
            const lines = pending.split("\n");
            pending = lines.pop()!;
            for (const l of lines) {
              if (/^starting node-postgres/.test(l.trim())) targetStarted = startedTarget = true;
              if (l.trim()) opts.log(`repeatability: run ${i}: ${l.trim()}`);
            }
          },
        });
        targetStarted = false;
        // killed from outside (on a shared machine): take down the target it left behind, then once more
        if (r.signal && !killedOnce) {
          killedOnce = true;
          opts.log(`repeatability: run ${i}: sfbench run was killed by ${r.signal} (not by the harness); once more`);
          if (startedTarget) await runCommand(process.execPath, [CLI, "target", "down", "node-postgres"], { cwd: REPO, timeoutMs: 30_000 });
          continue;
        }
        // the target or its port is someone else's for now (another run or test on this machine): wait, a while
        if (r.code === 0 || !BUSY.test(r.stderr) || wait >= BUSY_RETRIES) break;
        opts.log(`repeatability: run ${i}: node-postgres or its port is in use; trying again in ${BUSY_WAIT_S} s (${wait + 1}/${BUSY_RETRIES})`);
        await new Promise((res) => setTimeout(res, BUSY_WAIT_S * 1000));
      }
      const wallS = (performance.now() - started) / 1000;
      let doc: ResultDocument;
      try {
        doc = JSON.parse(r.stdout) as ResultDocument;
      } catch {
        const how = r.signal ? `was killed by ${r.signal} (not by the harness)` : `exited with ${r.code}`;
        throw new HarnessError(`sfbench run ${i} ${how} without a result document; its last lines: ${r.stderr.trim().split("\n").slice(-3).join(" | ") || "(no output)"}`);
      }
      if (r.code !== 0 || doc.status !== "completed") throw new HarnessError(`sfbench run ${i} failed (exit ${r.code}) during ${doc.error?.stage}: ${doc.error?.message}`);
      const cell = doc.cells[0];
      if (!cell?.maxThroughput) throw new HarnessError(`sfbench run ${i}: the result has no max-throughput figures`);
      const run: RepeatRun = {
        sustainableRate: cell.maxThroughput.sustainableRate,
        maxMovingAvg10s: cell.maxThroughput.maxMovingAvg10s,
        stableRate: cell.stable?.achievedRate ?? null,
        stableP99Ms: cell.stable?.latency.p99 ?? null,
        valid: cell.valid,
        ...(cell.invalidReason ? { invalidReason: cell.invalidReason } : {}),
        wallS,
        rampRates: cell.maxThroughput.steps.map((s) => s.offeredRate),
      };
      runs.push(run);
      opts.log(`repeatability: run ${i}: sustainable ${run.sustainableRate ?? "none"}/s, max 10 s average ${run.maxMovingAvg10s.toFixed(1)}/s (steps ${run.rampRates.join(", ")}) in ${wallS.toFixed(0)} s`);
    } finally {
      rmSync(results, { recursive: true, force: true });
    }
  }
  const rates = runs.map((r) => r.sustainableRate ?? 0);
  const s = cv(rates);
  return {
    command: `sfbench ${args.join(" ")} (x${RUNS})`,
    runs,
    ...s,
    movingAvgCv: cv(runs.map((r) => r.maxMovingAvg10s)).cv,
    goal: REPEATABILITY_GOAL,
    pass: s.cv <= REPEATABILITY_GOAL,
  };
}
