/**
 * The instrument's own overhead on real targets (node-postgres by default,
 * `--targets all` for every bundled target that traces): checkout/uniform at
 * one fixed arrival rate, phases interleaved in one run so that the machine's
 * background load hits every mode alike. Figures are ratios of p50 within a
 * round (adjacent phases), then the median over rounds, per target: a
 * fine-grained target writes 10-25 spans per checkout, so what tracing costs
 * is measured per system, not assumed from the baseline's.
 *
 *   npm run bench:overhead [-- --quick] [-- --targets node-postgres,restate|all] [-- --rate 60] [-- --port 18300] [-- --json FILE]
 *
 * Per round, two fresh starts of the target (fresh database each), in
 * alternating order:
 *   untraced (SFBENCH_TRACE=0): "off" (nothing of the instrument but k6) and
 *     "sampled" (the cost sampler reading /proc every 250 ms, as in a stable
 *     phase), then "after overload": a step at 4x the rate, then "off" again
 *     (what a ramp leaves behind for the stable phase);
 *   traced (SFBENCH_TRACE=1): "unsampled" (requests whose traceparent says
 *     not sampled, the sampler on: exactly the knee search and the stable
 *     phase of a traced run), "spans" (sampled requests, the target writes
 *     span lines, nothing ships them), "full" (spans shipped through Kafka once
 *     the phase is over, the sampler on: exactly the traced phase) and
 *     "full-live" (the same, with the spans shipped while the phase runs, as
 *     runs did before 2026-11-24).
 * Modes within a start run in alternating order too. The goals: unsampled /
 * off below 1.05 (what ranks a traced target costs it under 5% of p50), and
 * full / off, what the breakdown's phase costs the system, reported per
 * system (under 5% for the baseline).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { k6Path, kafkaBrokers, up } from "@sfbench/services";
import { aggregateK6 } from "@sfbench/engine";
import { pinTrees, planSplit } from "@sfbench/engine";
import { ProcessSampler } from "@sfbench/engine";
import { runK6 } from "@sfbench/engine";
import { pinProcess } from "@sfbench/engine";
import { TraceSession } from "@sfbench/engine";
import { HarnessError, interrupted, onInterrupt } from "./lib/children.ts";
import { intFlag, parseFlags } from "./lib/flags.ts";
import { overheadTargets } from "./lib/overhead-targets.ts";
import { PrivateTarget } from "./lib/private-target.ts";
import { median, roundRatios } from "./lib/ratios.ts";

const MODES = ["off", "sampled", "after-overload", "unsampled", "spans", "full", "full-live"] as const;
type Mode = (typeof MODES)[number];

const USAGE = `usage: npm run bench:overhead -- [--quick] [--targets a,b|all] [--rate N] [--port N] [--rounds N] [--phase-s N] [--products N] [--json FILE]
  --quick     2 rounds of 8 s phases, 1000 products (about 5 minutes per target)
  --targets   bundled targets that trace (target.json tracing: true), comma-separated, or all (default node-postgres)
  --rate      checkouts/s offered in every phase (default 60; keep it well below the knee of the slowest target named)
  --port      port for the target (default 18300)
  --json      also write every phase's figures to FILE`;

interface Options {
  targets: string[];
  rate: number;
  port: number;
  rounds: number;
  phaseS: number;
  products: number;
  json?: string;
}

function parse(argv: string[]): Options {
  const values = parseFlags(
    argv,
    {
      quick: { type: "boolean" },
      targets: { type: "string" },
      rate: { type: "string" },
      port: { type: "string" },
      rounds: { type: "string" },
      "phase-s": { type: "string" },
      products: { type: "string" },
      json: { type: "string" },
    },
    USAGE,
  );
  const quick = values.quick ?? false;
  return {
    targets: overheadTargets(values.targets),
    rate: intFlag("rate", values.rate, 60, 1, 5000),
    port: intFlag("port", values.port, 18300, 1024, 65535),
    rounds: intFlag("rounds", values.rounds, quick ? 2 : 4, 1, 20),
    phaseS: intFlag("phase-s", values["phase-s"], quick ? 8 : 20, 3, 600),
    products: intFlag("products", values.products, quick ? 1000 : 5000, 10, 100000),
    json: values.json,
  };
}

const log = (m: string) => process.stderr.write(`[overhead ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

interface Phase {
  target: string;
  round: number;
  mode: Mode;
  p50: number;
  p99: number;
  mean: number;
  count: number;
  completedShare: number | null;
  errorRate: number;
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
  const split = planSplit();
  // as in a run (run.ts): this process's sampler and shipper stay on the generator's cores
  if (split) pinProcess(process.pid, split.generator);
  const raw = mkdtempSync(join(tmpdir(), "sfbench-overhead-"));
  const phases: Phase[] = [];
  const started = new Date();
  try {
    for (const name of opts.targets) {
      log(
        `${name}, checkout/uniform at ${opts.rate}/s, ${opts.rounds} rounds of ${opts.phaseS} s phases, ${opts.products} products; generator cores ${split?.generator ?? "shared"}, target cores ${split?.target ?? "shared"}`,
      );
      await measureTarget(name, opts, { k6, raw, split, phases });
    }
  } finally {
    rmSync(raw, { recursive: true, force: true });
  }
  process.stdout.write(report(phases, opts, started));
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ options: opts, startedAt: started.toISOString(), phases }, null, 2) + "\n");
  return 0;
}

/** One target's rounds: two fresh starts per round (untraced, traced), the modes interleaved; its phases appended to `phases`. */
async function measureTarget(
  name: string,
  opts: Options,
  ctx: { k6: string; raw: string; split: ReturnType<typeof planSplit>; phases: Phase[] },
): Promise<void> {
  const { k6, raw, split, phases } = ctx;
  const target = new PrivateTarget(name);
  const stop = () => target.stop();
  const unregister = onInterrupt(stop);
  try {
    for (let round = 0; round < opts.rounds; round++) {
      const order: Array<"untraced" | "traced"> = round % 2 === 0 ? ["untraced", "traced"] : ["traced", "untraced"];
      for (const instance of order) {
        const t = await target.start(opts.port, instance === "traced");
        try {
          if (split) pinTrees(t.pids, split.target);
          const prefix = `o${round}${instance[0]}${Date.now().toString(36)}`;
          const env = { BASE_URL: t.url, SEED: String(round + 1), PRODUCTS: String(opts.products), PRODUCT_PREFIX: prefix };
          const seeded = await runK6({ k6, script: "seed", env, outDir: raw, name: `${prefix}-seed`, cpus: split?.generator });
          if (seeded.exitCode !== 0) throw new HarnessError(`seeding failed: ${seeded.stderrTail}`);
          const phase = async (
            mode: Mode | "warm-up" | "overload",
            rate: number,
            seconds: number,
            instrument: { sampler?: boolean; trace?: TraceSession; sampledRequests?: boolean } = {},
          ) => {
            const runName = `${prefix}-${mode}`;
            const sampler = instrument.sampler ? new ProcessSampler({ target: () => t.pids }) : undefined;
            const window = instrument.trace ? await instrument.trace.window({ live: mode === "full-live" }) : undefined;
            sampler?.start();
            const out = await runK6({
              k6,
              script: "checkout",
              env: {
                ...env,
                // the traceparent's sampled flag: a traced target writes spans for these requests only
                TRACED: instrument.sampledRequests ? "1" : "0",
                DISTRIBUTION: "uniform",
                STEPS: JSON.stringify([{ rate, duration: seconds }]),
                PRE_VUS: String(Math.max(10, Math.ceil(rate * 0.25))),
                MAX_VUS: String(Math.max(100, Math.ceil(rate * 2.5))),
              },
              outDir: raw,
              name: runName,
              cpus: split?.generator,
            });
            sampler?.stop();
            if (window) await window.finish(() => false);
            if (out.exitCode !== 0) throw new HarnessError(`k6 failed in ${mode}: ${out.stderrTail}`);
            if (mode === "warm-up" || mode === "overload") return;
            const a = await aggregateK6(out.csv, { op: "checkout", stepRates: [rate], stepDurationsS: [seconds] });
            const s = a.steps[0]!;
            const p: Phase = {
              target: name,
              round,
              mode,
              p50: s.latency.p50,
              p99: s.latency.p99,
              mean: s.latency.mean,
              count: s.latency.count,
              completedShare: s.window.completedShare,
              errorRate: s.errorRate,
            };
            phases.push(p);
            log(
              `round ${round + 1} ${instance} ${mode}: p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(1)} ms, ${p.count} checkouts, completed ${((p.completedShare ?? 0) * 100).toFixed(1)}%`,
            );
          };
          await phase("warm-up", opts.rate, 3);
          if (instance === "untraced") {
            const modes: Mode[] = round % 2 === 0 ? ["off", "sampled"] : ["sampled", "off"];
            for (const m of modes) await phase(m, opts.rate, opts.phaseS, { sampler: m === "sampled" });
            await phase("overload", opts.rate * 4, 6);
            await phase("after-overload", opts.rate, opts.phaseS);
          } else {
            const trace = await TraceSession.open(`overhead-${prefix}`, { logFile: t.log, brokers: kafkaBrokers() });
            try {
              const modes: Mode[] = round % 2 === 0 ? ["unsampled", "spans", "full", "full-live"] : ["full-live", "full", "spans", "unsampled"];
              for (const m of modes)
                await phase(
                  m,
                  opts.rate,
                  opts.phaseS,
                  m === "unsampled" ? { sampler: true } : m === "spans" ? { sampledRequests: true } : { sampler: true, trace, sampledRequests: true },
                );
            } finally {
              await trace.close().catch(() => undefined);
            }
          }
        } finally {
          await stop();
        }
      }
    }
  } finally {
    unregister();
    await target.dispose();
  }
}

function report(all: readonly Phase[], opts: Options, started: Date): string {
  const lines = [
    `# bench:overhead, ${started.toISOString()}: checkout/uniform at ${opts.rate}/s, ${opts.rounds} rounds x ${opts.phaseS} s, ${opts.products} products`,
    "",
  ];
  const summary: string[] = [];
  for (const name of opts.targets) {
    const phases = all.filter((p) => p.target === name);
    if (!phases.length) continue;
    const { table, overhead, untracedPhases } = targetReport(name, phases);
    lines.push(...table);
    summary.push(`| ${name} | ${pct(untracedPhases)} | ${untracedPhases < 0.05 ? "met" : "NOT met"} | ${pct(overhead)} |`);
  }
  if (opts.targets.length > 1)
    lines.push(
      "| target | the knee search's instrument (unsampled vs off, p50) | goal < 5% | the traced phase's (full vs off, p50) |",
      "|---|---|---|---|",
      ...summary,
      "",
    );
  return lines.join("\n");
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function targetReport(name: string, phases: readonly Phase[]): { table: string[]; overhead: number; untracedPhases: number } {
  const r = roundRatios(phases, MODES) as Record<Mode, number>;
  const r99 = roundRatios(phases, MODES, "off", "p99") as Record<Mode, number>;
  const lines = [
    `## ${name}`,
    "",
    "| mode | what the instrument does | median p50 ms | median p99 ms | p50 / off (median of rounds) | p99 / off |",
    "|---|---|---|---|---|---|",
  ];
  const what: Record<Mode, string> = {
    off: "k6 only (target untraced)",
    sampled: "+ cost sampler (/proc every 250 ms)",
    "after-overload": "off, right after a 6 s step at 4x the rate",
    unsampled: "target traced (SFBENCH_TRACE=1), requests not sampled + sampler (the knee search, the stable phase)",
    spans: "sampled requests: the target writes span lines, not shipped",
    full: "spans written, shipped through Kafka after the phase + sampler (the traced phase)",
    "full-live": "spans written and shipped through Kafka during the phase + sampler",
  };
  for (const mode of MODES) {
    const ps = phases.filter((p) => p.mode === mode);
    lines.push(
      `| ${mode} | ${what[mode]} | ${median(ps.map((p) => p.p50)).toFixed(2)} | ${median(ps.map((p) => p.p99)).toFixed(1)} | ${r[mode].toFixed(3)} | ${r99[mode].toFixed(2)} |`,
    );
  }
  const overhead = r.full - 1;
  const untracedPhases = r.unsampled - 1;
  lines.push(
    "",
    `${name}: the knee search's instrument (unsampled vs off): ${pct(untracedPhases)} of p50 (goal < 5%): ${untracedPhases < 0.05 ? "met" : "NOT met"}`,
    `${name}: the traced phase's (full vs off): ${pct(overhead)} of p50`,
    "",
  );
  return { table: lines, overhead, untracedPhases };
}

try {
  process.exitCode = await main();
} catch (e) {
  process.stderr.write(`bench:overhead: ${(e as Error).message}\n`);
  process.exitCode = 1;
}
