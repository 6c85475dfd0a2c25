/**
 * Fidelity: does the instrument report the latency the target had? A
 * calibration target (servers/latency-server.ts, its own core) injects a
 * known distribution, 5 ms + Exp(mean 5 ms); k6 drives it at a moderate
 * open-model rate with the workloads' own request code (k6/fidelity.ts),
 * through runK6 (raw CSV), and aggregateK6 turns the raw data into the
 * latency histogram every run reports. Measured p50 and p99 are compared with
 * the injected ones.
 *
 * For attribution: the server records what it actually kept (a late timer
 * is the target's miss, not the instrument's) and how long handing each
 * answer to the socket took; a first, shorter run against the same server
 * with zero delay gives the floor, what k6 measures for a request that
 * takes no time at all on this machine (loopback, both processes waking up,
 * HTTP parsing on both ends).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LatencyStats } from "@sfbench/core";
import { aggregateK6 } from "@sfbench/engine";
import { LatencyHistogram } from "@sfbench/engine";
import type { CpuSplit } from "@sfbench/engine";
import { runK6 } from "@sfbench/engine";
import { getJson, HarnessError, startServer } from "./lib/children.ts";
import { injectedQuantile, type InjectedDistribution } from "./lib/injected.ts";
import { CpuWatch, describeSplit } from "./lib/machine.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export const FIDELITY_GOAL = { p50Ms: 0.5, p99Ms: 2 };
export const DISTRIBUTION: InjectedDistribution = { baseMs: 5, meanMs: 5 };
export const FIDELITY_PROFILES = { quick: { rate: 200, durationS: 12, floorS: 4 }, full: { rate: 200, durationS: 60, floorS: 15 } };

export interface Quantiles {
  p50: number;
  p99: number;
}

export interface CalibrationRun {
  rate: number;
  durationS: number;
  /** k6's raw data through aggregateK6 (answered requests) */
  measured: LatencyStats;
  errors: number;
  droppedIterations: number;
  /** the delays the server drew */
  serverTarget: LatencyStats;
  /** what the server kept: headers parsed -> answer started */
  serverActual: LatencyStats;
  /** handing the answer to the socket */
  serverWrite: LatencyStats;
  /** cores used on average: k6, the server, other processes (on the machine, on k6's and on the server's cores) */
  cores: { generator: number; server: number; other: number; otherOnGenerator: number | null; otherOnServer: number | null };
}

export interface FidelityResult {
  split: string;
  distribution: string;
  /** the distribution's true quantiles and mean */
  injected: Quantiles & { mean: number };
  run: CalibrationRun;
  /** the same against zero delay: the floor of what k6 can measure here */
  floor: CalibrationRun;
  /** measured - injected */
  diff: Quantiles;
  goal: typeof FIDELITY_GOAL;
  pass: { p50: boolean; p99: boolean };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function statsOf(values: number[]): LatencyStats {
  const h = LatencyHistogram.create();
  for (const v of values) h.recordMs(v);
  return h.stats();
}

interface ServerStats {
  count: number;
  targetMs: number[];
  actualMs: number[];
  writeMs: number[];
}

async function calibrate(
  k6: string,
  dist: InjectedDistribution,
  rate: number,
  durationS: number,
  name: string,
  split: CpuSplit | undefined,
): Promise<CalibrationRun> {
  const server = await startServer(here("./servers/latency-server.ts"), ["--base-ms", String(dist.baseMs), "--mean-ms", String(dist.meanMs)], split?.target);
  const outDir = mkdtempSync(join(tmpdir(), "sfbench-fidelity-"));
  try {
    let gen: number | undefined;
    const watch = new CpuWatch(
      { generator: () => (gen ? [gen] : []), server: () => [server.pid] },
      { generator: split?.generator, server: split?.target },
    ).start();
    const out = await runK6({
      k6,
      script: { file: here("../k6/fidelity.ts") },
      env: { BASE_URL: server.url, RATE: String(rate), DURATION: String(durationS) },
      outDir,
      name,
      cpus: split?.generator,
      onStart: (pid) => (gen = pid),
    });
    const cpu = watch.stop();
    if (out.exitCode !== 0) throw new HarnessError(`k6 exited with ${out.exitCode} in the fidelity run: ${out.stderrTail || "(no output)"}`);
    if (server.exited()) throw new HarnessError(`the calibration server exited with ${server.exited()}`);
    const stats = await getJson<ServerStats>(`${server.url}/__stats`);
    const agg = await aggregateK6(out.csv, { op: "checkout", stepRates: [rate], stepDurationsS: [durationS], groupBy: [] });
    if (agg.overall.latency.count === 0) throw new HarnessError(`k6 measured no answered request in the fidelity run`);
    return {
      rate,
      durationS,
      measured: agg.overall.latency,
      errors: agg.overall.errors,
      droppedIterations: agg.droppedIterations,
      serverTarget: statsOf(stats.targetMs),
      serverActual: statsOf(stats.actualMs),
      serverWrite: statsOf(stats.writeMs),
      cores: {
        generator: cpu.cores.generator!,
        server: cpu.cores.server!,
        other: cpu.otherCores,
        otherOnGenerator: cpu.otherOn.generator ?? null,
        otherOnServer: cpu.otherOn.server ?? null,
      },
    };
  } finally {
    await server.stop();
    rmSync(outDir, { recursive: true, force: true });
  }
}

export async function fidelity(opts: { k6: string; quick: boolean; split: CpuSplit | undefined; log: (m: string) => void }): Promise<FidelityResult> {
  const { rate, durationS, floorS } = FIDELITY_PROFILES[opts.quick ? "quick" : "full"];
  const { split, log } = opts;
  log(`fidelity: floor, k6 at ${rate}/s for ${floorS} s against zero delay`);
  const floor = await calibrate(opts.k6, { baseMs: 0, meanMs: 0 }, rate, floorS, "floor", split);
  log(`fidelity: k6 at ${rate}/s for ${durationS} s against ${DISTRIBUTION.baseMs} ms + Exp(${DISTRIBUTION.meanMs} ms)`);
  const run = await calibrate(opts.k6, DISTRIBUTION, rate, durationS, "fidelity", split);
  const injected = {
    p50: round3(injectedQuantile(DISTRIBUTION, 0.5)),
    p99: round3(injectedQuantile(DISTRIBUTION, 0.99)),
    mean: DISTRIBUTION.baseMs + DISTRIBUTION.meanMs,
  };
  const diff = { p50: round3(run.measured.p50 - injected.p50), p99: round3(run.measured.p99 - injected.p99) };
  return {
    split: describeSplit(split),
    distribution: `${DISTRIBUTION.baseMs} ms + Exp(mean ${DISTRIBUTION.meanMs} ms), quasi-random draws (bench/lib/injected.ts)`,
    injected,
    run,
    floor,
    diff,
    goal: FIDELITY_GOAL,
    pass: { p50: Math.abs(diff.p50) <= FIDELITY_GOAL.p50Ms, p99: Math.abs(diff.p99) <= FIDELITY_GOAL.p99Ms },
  };
}
