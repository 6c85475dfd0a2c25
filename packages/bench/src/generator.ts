/**
 * Generator cost: the CPU k6 spends per checkout iteration, started as runs
 * start it (the engine's runK6, the checkout workload, the VU pool of a
 * load step), against a shop that answers at once (servers/shop-server.ts,
 * on the server's core). A run's knee counts only while k6 used at most 90%
 * of its core (GENERATOR_LIMITS), so this cost sets the highest checkout
 * rate a run on this machine can report; the figure printed is that ceiling.
 * Each round runs every Go setting once, in a rotated order: what runs use
 * (K6_GO_ENV) and Go's defaults.
 *
 * The CPU counted is the k6 process's between one second after its first
 * iteration and one second before its last, so the start-up of the VU pool
 * (before a step's clock starts) and the drain are not spread over the
 * iterations.
 *
 *   npm run bench:generator [-- --quick] [-- --rate 200] [-- --seconds 30] [-- --rounds 3] [-- --json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { GENERATOR_LIMITS } from "@sfbench/core";
import { cpuBetween, K6_GO_ENV, maxVus, preVus, ProcessSampler, runK6, streamK6Csv } from "@sfbench/engine";
import { k6Path } from "@sfbench/services";
import { HarnessError, interrupted, startServer } from "./lib/children.ts";
import { intFlag, parseFlags, UsageError } from "./lib/flags.ts";
import { describeSplit, machine, split } from "./lib/machine.ts";
import { table } from "./lib/report.ts";
import { median } from "./lib/ratios.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export const GO_SETTINGS = {
  runs: {
    env: K6_GO_ENV,
    what: `as runs start k6 (${Object.entries(K6_GO_ENV)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")})`,
  },
  "go-default": { env: {}, what: "Go's defaults (GOGC=100, no memory limit)" },
} as const;
export type GoSetting = keyof typeof GO_SETTINGS;

export interface GeneratorProfile {
  rate: number;
  seconds: number;
  rounds: number;
}

export const GENERATOR_PROFILES: Record<"quick" | "full", GeneratorProfile> = {
  quick: { rate: 100, seconds: 6, rounds: 1 },
  full: { rate: 200, seconds: 30, rounds: 3 },
};

export interface GeneratorTrial {
  setting: GoSetting;
  round: number;
  /** iterations and requests inside the counted window */
  iterations: number;
  requests: number;
  windowS: number;
  cpuSeconds: number;
  cpuPerIterationUs: number;
  peakRssMiB: number;
  /** checks that failed in the whole run (the shop answers every request right, so any is an error of the benchmark) */
  failedChecks: number;
}

export interface GeneratorSummary {
  setting: GoSetting;
  what: string;
  trials: number;
  cpuPerIterationUs: number;
  cpuPerRequestUs: number;
  /** checkouts a second one generator core offers at the saturation limit */
  ceilingPerS: number;
  peakRssMiB: number;
}

export interface GeneratorResult {
  profile: GeneratorProfile;
  trials: GeneratorTrial[];
  summary: GeneratorSummary[];
}

async function trial(
  k6: string,
  url: string,
  outDir: string,
  p: GeneratorProfile,
  setting: GoSetting,
  round: number,
  generatorCpus: string | undefined,
): Promise<GeneratorTrial> {
  let pid: number | undefined;
  const sampler = new ProcessSampler({ generator: () => (pid === undefined ? [] : [pid]) }, 100);
  const name = `${setting}-${round}`;
  sampler.start();
  const out = await runK6(
    {
      k6,
      script: "checkout",
      env: {
        BASE_URL: url,
        SEED: String(round),
        PRODUCTS: "5000",
        DISTRIBUTION: "uniform",
        STEPS: JSON.stringify([{ rate: p.rate, duration: p.seconds }]),
        PRE_VUS: String(preVus(p.rate)),
        MAX_VUS: String(maxVus(p.rate)),
      },
      outDir,
      name,
      cpus: generatorCpus,
      onStart: (started) => (pid = started),
    },
    { goEnv: GO_SETTINGS[setting].env },
  ).catch((e: unknown) => {
    sampler.stop();
    throw e;
  });
  const usage = sampler.stop();
  if (out.exitCode !== 0) throw new HarnessError(`k6 exited with code ${out.exitCode}: ${out.stderrTail || "(no output)"}`);
  const iterationsAt: number[] = [];
  const requestsAt: number[] = [];
  let failedChecks = 0;
  await streamK6Csv(
    out.csv,
    (s) => {
      if (s.metric === "iterations") iterationsAt.push(s.timeMs);
      else if (s.metric === "http_reqs") requestsAt.push(s.timeMs);
      else if (s.metric === "checks" && s.value === 0) failedChecks++;
    },
    { metrics: ["iterations", "http_reqs", "checks"] },
  );
  if (iterationsAt.length < 2) throw new HarnessError(`k6 completed ${iterationsAt.length} iterations at ${p.rate}/s for ${p.seconds} s`);
  const from = Math.min(...iterationsAt) + 1000;
  const to = Math.max(...iterationsAt) - 1000;
  if (to <= from) throw new HarnessError(`the run was too short to count a window (${p.seconds} s)`);
  const inWindow = (t: number) => t >= from && t < to;
  const iterations = iterationsAt.filter(inWindow).length;
  const cpuSeconds = cpuBetween(usage.series.generator ?? [], from, to);
  return {
    setting,
    round,
    iterations,
    requests: requestsAt.filter(inWindow).length,
    windowS: (to - from) / 1000,
    cpuSeconds,
    cpuPerIterationUs: (cpuSeconds / iterations) * 1e6,
    peakRssMiB: usage.groups.generator!.peakRssBytes / 2 ** 20,
    failedChecks,
  };
}

export function summarize(trials: readonly GeneratorTrial[]): GeneratorSummary[] {
  return (Object.keys(GO_SETTINGS) as GoSetting[]).flatMap((setting) => {
    const mine = trials.filter((t) => t.setting === setting);
    if (mine.length === 0) return [];
    const perIteration = median(mine.map((t) => t.cpuPerIterationUs));
    return [
      {
        setting,
        what: GO_SETTINGS[setting].what,
        trials: mine.length,
        cpuPerIterationUs: perIteration,
        cpuPerRequestUs: median(mine.map((t) => (t.cpuSeconds / t.requests) * 1e6)),
        ceilingPerS: (GENERATOR_LIMITS.maxCpuShare * 1e6) / perIteration,
        peakRssMiB: Math.max(...mine.map((t) => t.peakRssMiB)),
      },
    ];
  });
}

export function generatorReport(r: GeneratorResult): string {
  const rows = [
    ["setting", "round", "iterations", "requests", "window", "k6 CPU", "per iteration", "peak RSS"],
    ...r.trials.map((t) => [
      t.setting,
      String(t.round),
      String(t.iterations),
      String(t.requests),
      `${t.windowS.toFixed(1)} s`,
      `${t.cpuSeconds.toFixed(2)} s`,
      `${Math.round(t.cpuPerIterationUs)} us`,
      `${Math.round(t.peakRssMiB)} MiB`,
    ]),
  ];
  const sums = [
    ["setting", "trials", "k6 CPU per checkout", "per request", `ceiling at ${GENERATOR_LIMITS.maxCpuShare * 100}% of a core`, "peak RSS", "what"],
    ...r.summary.map((s) => [
      s.setting,
      String(s.trials),
      `${Math.round(s.cpuPerIterationUs)} us`,
      `${Math.round(s.cpuPerRequestUs)} us`,
      `${Math.round(s.ceilingPerS)} checkouts/s`,
      `${Math.round(s.peakRssMiB)} MiB`,
      s.what,
    ]),
  ];
  return [
    `== generator cost: checkout/uniform at ${r.profile.rate}/s for ${r.profile.seconds} s, ${r.profile.rounds} round(s)`,
    table(rows),
    "",
    "medians:",
    table(sums),
  ].join("\n");
}

export async function generatorCost(opts: { k6: string; profile: GeneratorProfile; log: (m: string) => void }): Promise<GeneratorResult> {
  const cpus = split();
  const server = await startServer(here("servers/shop-server.ts"), [], cpus?.target);
  const outDir = mkdtempSync(join(tmpdir(), "sfbench-generator-"));
  const trials: GeneratorTrial[] = [];
  try {
    const settings = Object.keys(GO_SETTINGS) as GoSetting[];
    for (let round = 1; round <= opts.profile.rounds; round++) {
      // rotated, so that neither setting always runs first after a pause
      const order = settings.map((_, i) => settings[(i + round - 1) % settings.length]!);
      for (const setting of order) {
        opts.log(`round ${round}/${opts.profile.rounds}: ${setting}, ${opts.profile.rate}/s for ${opts.profile.seconds} s`);
        const t = await trial(opts.k6, server.url, outDir, opts.profile, setting, round, cpus?.generator);
        if (server.exited()) throw new HarnessError(`the shop server exited (${server.exited()})`);
        if (t.failedChecks > 0) throw new HarnessError(`${t.failedChecks} checks failed against the shop server: the benchmark, not k6, is wrong`);
        opts.log(`  ${Math.round(t.cpuPerIterationUs)} us of k6 CPU per checkout (${t.iterations} in ${t.windowS.toFixed(1)} s)`);
        trials.push(t);
      }
    }
  } finally {
    await server.stop();
    rmSync(outDir, { recursive: true, force: true });
  }
  return { profile: opts.profile, trials, summary: summarize(trials) };
}

const USAGE = `usage: npm run bench:generator -- [--quick] [--rate N] [--seconds S] [--rounds N] [--json FILE]
  --quick    ${GENERATOR_PROFILES.quick.rate}/s for ${GENERATOR_PROFILES.quick.seconds} s, ${GENERATOR_PROFILES.quick.rounds} round (default: ${GENERATOR_PROFILES.full.rate}/s for ${GENERATOR_PROFILES.full.seconds} s, ${GENERATOR_PROFILES.full.rounds} rounds)
  --rate     checkouts a second offered (1..2000)
  --seconds  length of each k6 run (4..600)
  --rounds   rounds, each running every Go setting once (1..20)
  --json     also write the trials and medians as JSON to FILE`;

const log = (m: string) => process.stderr.write(`[generator ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

async function main(): Promise<number> {
  let profile: GeneratorProfile;
  let json: string | undefined;
  try {
    const v = parseFlags(
      process.argv.slice(2),
      { quick: { type: "boolean" }, rate: { type: "string" }, seconds: { type: "string" }, rounds: { type: "string" }, json: { type: "string" } },
      USAGE,
    );
    const base = GENERATOR_PROFILES[v.quick ? "quick" : "full"];
    profile = {
      rate: intFlag("rate", v.rate, base.rate, 1, 2000),
      seconds: intFlag("seconds", v.seconds, base.seconds, 4, 600),
      rounds: intFlag("rounds", v.rounds, base.rounds, 1, 20),
    };
    json = v.json;
  } catch (e) {
    if (!(e instanceof UsageError) && !(e instanceof TypeError)) throw e;
    process.stderr.write(`${e.message}\n${USAGE}\n`);
    return 2;
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void interrupted().finally(() => process.exit(130)));
  const k6 = process.env.K6 ?? (await k6Path({ onProgress: (m) => log(`k6: ${m}`) }));
  const m = machine({ k6 });
  const started = new Date();
  const splitText = describeSplit(split());
  log(`${m.cpuModel}, ${m.cores} cores; ${splitText}`);
  const result = await generatorCost({ k6, profile, log });
  process.stdout.write(
    [
      `sfbench generator cost: npm run bench:generator -- --rate ${profile.rate} --seconds ${profile.seconds} --rounds ${profile.rounds}`,
      `machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, Linux ${m.kernel}; ${m.k6 ?? "k6 ?"}`,
      `CPU split: ${splitText}; load average when started: ${m.loadAverage1m}`,
      `started ${started.toISOString()}, took ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s`,
      "",
      generatorReport(result),
      "",
    ].join("\n"),
  );
  if (json) writeFileSync(json, JSON.stringify({ machine: m, startedAt: started.toISOString(), ...result }, null, 2) + "\n");
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`bench:generator: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
