/**
 * Why one target's latency differs between profiles at the same offered
 * rate: node-postgres, checkout/uniform, its stable phase at one fixed
 * rate after what a profile does before it, one factor changed at a time. Each
 * configuration is a real run (runBenchmark: seed, stock snapshot, ramp,
 * stable phase with the cost sampler, traced phase, audit) on a fresh target:
 *
 *   quick           1000 products, the quick ramp (40, 120, 360/s, 2 s steps), 3 s stable
 *   quick-30s       the same, 30 s stable (run length)
 *   quick-5000      5000 products (data size), the quick ramp, 30 s stable
 *   standard        5000 products, the standard knee search (6 s steps bisected to 5%), 30 s stable
 *   standard-1core  the same with the generator and the target on one core: what every
 *                   run of the worker after its first one did until the split was fixed
 * and each profile as it publishes, at 80% of the knee it found itself:
 *   quick-own       the quick profile's own stable rate (80% of a knee known to x3)
 *   standard-own    the standard profile's own stable rate (80% of a knee known to 5%)
 *
 * Configurations run in a rotated order per round; the figure is each one's
 * p50 and p99 over "quick"'s in the same round, the median over rounds.
 * The instrument's own cost (tracing, sampling, shipping) is bench:overhead's.
 *
 *   npm run bench:profiles [-- --quick] [-- --rate 100] [-- --rounds 2] [-- --only quick,standard] [-- --json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifestDigest, type Cell, type Profile } from "@sfbench/core";
import { findTarget } from "@sfbench/catalogue";
import { k6Path, kafkaBrokers, up } from "@sfbench/services";
import { formatCpuList, pinTrees, runCpus } from "@sfbench/engine";
import { PROFILE_SETTINGS, type ProfileSettings } from "@sfbench/engine";
import { pinProcess, runBenchmark } from "@sfbench/engine";
import { HarnessError, interrupted, onInterrupt } from "./lib/children.ts";
import { intFlag, listFlag, parseFlags } from "./lib/flags.ts";
import { PrivateTarget, REPO } from "./lib/private-target.ts";
import { median, roundRatios } from "./lib/ratios.ts";

const TARGET = "node-postgres";

interface Config {
  what: string;
  profile: Exclude<Profile, "thesis">;
  settings: Partial<ProfileSettings>;
  /** generator and target share one core (no split) */
  oneCore?: boolean;
  /** the stable phase at 80% of the knee this run found (as published), not at --rate */
  ownRate?: boolean;
}

const CONFIGS = {
  quick: { what: "1000 products, quick ramp, 3 s stable", profile: "quick", settings: {} },
  "quick-30s": { what: "+ 30 s stable (run length)", profile: "quick", settings: { stableS: 30 } },
  "quick-5000": { what: "+ 5000 products (data size)", profile: "quick", settings: { stableS: 30, products: 5000 } },
  standard: { what: "+ the standard knee search before it", profile: "standard", settings: {} },
  "standard-1core": { what: "+ generator and target on one core (the worker's lost split)", profile: "standard", settings: {}, oneCore: true },
  "quick-own": { what: "the quick profile as published: 80% of its own knee", profile: "quick", settings: {}, ownRate: true },
  "standard-own": { what: "the standard profile as published: 80% of its own knee", profile: "standard", settings: {}, ownRate: true },
} satisfies Record<string, Config>;
type ConfigName = keyof typeof CONFIGS;
const NAMES = Object.keys(CONFIGS) as ConfigName[];

const USAGE = `usage: npm run bench:profiles -- [--quick] [--rate N] [--rounds N] [--stable-s N] [--only LIST] [--port N] [--json FILE]
  --quick     1 round, 10 s stable phases instead of 30 s (about 8 minutes)
  --rate      checkouts/s offered in every stable phase (default 100; below the target's knee)
  --rounds    rounds over all configurations (default 2)
  --only      comma-separated subset of ${NAMES.join(", ")}
  --port      port for the target (default 18310)
  --json      also write every run's figures to FILE`;

interface Options {
  rate: number;
  rounds: number;
  stableS: number;
  only: ConfigName[];
  port: number;
  json?: string;
}

function parse(argv: string[]): Options {
  const values = parseFlags(
    argv,
    {
      quick: { type: "boolean" },
      rate: { type: "string" },
      rounds: { type: "string" },
      "stable-s": { type: "string" },
      only: { type: "string" },
      port: { type: "string" },
      json: { type: "string" },
    },
    USAGE,
  );
  const quick = values.quick ?? false;
  return {
    rate: intFlag("rate", values.rate, 100, 1, 5000),
    rounds: intFlag("rounds", values.rounds, quick ? 1 : 2, 1, 10),
    stableS: intFlag("stable-s", values["stable-s"], quick ? 10 : 30, 3, 600),
    only: listFlag("only", values.only, NAMES),
    port: intFlag("port", values.port, 18310, 1024, 65535),
    json: values.json,
  };
}

const log = (m: string) => process.stderr.write(`[profiles ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

export interface ProfileRun {
  round: number;
  mode: ConfigName;
  p50: number;
  p99: number;
  offered: number;
  achieved: number;
  completedShare: number | null;
  valid: boolean;
  invalidReason?: string;
  /** the ramp before the stable phase: steps, the highest offered rate, seconds */
  rampSteps: number;
  rampMaxRate: number;
  /** the ramp's sustainable rate and its resolution (null: not bracketed) */
  knee: number | null;
  kneeResolution: number | null;
  products: number;
  stableS: number;
  cpuSplit?: { generator: string; target: string };
}

/** The stable phase's figures of a run's only cell. */
export function figures(round: number, mode: ConfigName, cell: Cell, cpuSplit?: ProfileRun["cpuSplit"]): ProfileRun {
  const s = cell.stable;
  if (!s) throw new HarnessError(`${mode}: the run has no stable phase${cell.invalidReason ? ` (${cell.invalidReason})` : ""}`);
  const steps = cell.maxThroughput?.steps ?? [];
  return {
    round,
    mode,
    p50: s.latency.p50,
    p99: s.latency.p99,
    offered: s.offeredRate,
    achieved: s.achievedRate,
    completedShare: s.completedShare ?? null,
    valid: cell.valid,
    ...(cell.invalidReason ? { invalidReason: cell.invalidReason } : {}),
    rampSteps: steps.length,
    rampMaxRate: Math.max(0, ...steps.map((st) => st.offeredRate)),
    knee: cell.maxThroughput?.sustainableRate ?? null,
    kneeResolution: cell.maxThroughput?.knee?.resolution ?? null,
    products: Number(cell.parameters.products),
    stableS: Number(cell.parameters.stableS),
    ...(cpuSplit ? { cpuSplit } : {}),
  };
}

async function main(): Promise<number> {
  let opts: Options;
  try {
    opts = parse(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void interrupted().finally(() => process.exit(130)));
  const k6 = process.env.K6 ?? (await k6Path({ onProgress: (m) => log(`k6: ${m}`) }));
  await up(["kafka"], { onProgress: (s, m) => log(`${s}: ${m}`) });
  const { manifest } = findTarget(TARGET);
  const targetInfo = { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) };
  const scratch = mkdtempSync(join(tmpdir(), "sfbench-profiles-"));
  const target = new PrivateTarget(TARGET);
  const unregister = onInterrupt(() => target.stop());
  const runs: ProfileRun[] = [];
  const started = new Date();
  const all = formatCpuList(runCpus());
  log(
    `node-postgres, checkout/uniform, stable phases at ${opts.rate}/s (${opts.stableS} s where a configuration says 30 s), ${opts.rounds} round(s): ${opts.only.join(", ")}`,
  );
  try {
    for (let round = 0; round < opts.rounds; round++) {
      // a rotated order per round: a configuration is not always first (or always after the heaviest)
      const order = opts.only.map((_, i) => opts.only[(i + round) % opts.only.length]!);
      for (const mode of order) {
        const config: Config = CONFIGS[mode];
        const settings: Partial<ProfileSettings> = { ...config.settings, ...(config.ownRate ? {} : { fixedStableRate: opts.rate }) };
        if ((settings.stableS ?? PROFILE_SETTINGS[config.profile].stableS) === 30) settings.stableS = opts.stableS;
        const t = await target.start(opts.port, true);
        try {
          const oneCore = config.oneCore ? formatCpuList(runCpus().slice(0, 1)) : undefined;
          if (oneCore) {
            pinProcess(process.pid, oneCore);
            pinTrees(t.pids, oneCore);
          }
          log(`round ${round + 1} ${mode} (${config.what}): running`);
          const outcome = await runBenchmark({
            target: targetInfo,
            baseUrl: t.url,
            k6,
            profile: config.profile,
            settings,
            cells: [{ workload: "checkout", distribution: "uniform" }],
            seed: round + 1,
            repoRoot: REPO,
            resultsDir: join(scratch, "results"),
            rawRoot: join(scratch, "raw"),
            targetPids: () => t.pids,
            checkAlive: () => undefined,
            trace: { logFile: t.log, brokers: kafkaBrokers() },
            ...(oneCore ? { pin: false } : {}),
          });
          if (outcome.doc.status !== "completed")
            throw new HarnessError(`${mode}: the run ${outcome.doc.status} during ${outcome.doc.error?.stage}: ${outcome.doc.error?.message}`);
          const r = figures(round, mode, outcome.doc.cells[0]!, outcome.doc.environment.cpuSplit);
          runs.push(r);
          log(
            `round ${round + 1} ${mode}: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(1)} ms at ${r.offered}/s (achieved ${r.achieved.toFixed(1)}/s) after ${r.rampSteps} ramp steps up to ${r.rampMaxRate}/s${r.valid ? "" : `; invalid: ${r.invalidReason}`}`,
          );
          // raw k6 output of a finished configuration is not needed again
          rmSync(outcome.doc.rawData.dir, { recursive: true, force: true });
        } finally {
          if (config.oneCore) pinProcess(process.pid, all);
          await target.stop();
        }
      }
    }
  } finally {
    unregister();
    await target.dispose();
    rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(report(runs, opts, started));
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ options: opts, startedAt: started.toISOString(), runs }, null, 2) + "\n");
  return 0;
}

export function report(runs: readonly ProfileRun[], opts: Pick<Options, "rate" | "rounds" | "stableS" | "only">, started: Date): string {
  const base = opts.only.includes("quick") ? "quick" : opts.only[0]!;
  const r50 = roundRatios(runs, opts.only, base);
  const r99 = roundRatios(runs, opts.only, base, "p99");
  const lines = [
    `# bench:profiles, ${started.toISOString()}: node-postgres checkout/uniform, stable phase at ${opts.rate}/s, ${opts.rounds} round(s)`,
    "",
    `| configuration | what changes | ramp before (steps, up to) | knee found | stable rate | median p50 ms | median p99 ms | p50 / ${base} | p99 / ${base} | valid |`,
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const mode of opts.only) {
    const rs = runs.filter((x) => x.mode === mode);
    if (!rs.length) continue;
    const ramp = `${median(rs.map((x) => x.rampSteps))}, ${median(rs.map((x) => x.rampMaxRate))}/s`;
    const knees = rs
      .map((x) => (x.knee === null ? "none" : `${x.knee}/s${x.kneeResolution === null ? "" : ` (${(x.kneeResolution * 100).toFixed(0)}%)`}`))
      .join(", ");
    const rates = [...new Set(rs.map((x) => `${x.offered}/s`))].join(", ");
    lines.push(
      `| ${mode} | ${CONFIGS[mode].what} | ${ramp} | ${knees} | ${rates} | ${median(rs.map((x) => x.p50)).toFixed(2)} | ${median(rs.map((x) => x.p99)).toFixed(1)} | ${r50[mode]!.toFixed(2)} | ${r99[mode]!.toFixed(2)} | ${rs.filter((x) => x.valid).length}/${rs.length} |`,
    );
  }
  return lines.join("\n") + "\n";
}

// the report and figures are tested; only a direct run measures
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  try {
    process.exitCode = await main();
  } catch (e) {
    process.stderr.write(`bench:profiles: ${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}
