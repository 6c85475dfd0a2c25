/**
 * Benchmarks of the instrument itself: headroom, fidelity,
 * repeatability. Prints the machine, one section per benchmark and a table of
 * the figures against their goals. A missed goal is a measurement (exit 0);
 * only errors exit non-zero.
 *
 *   npm run bench:harness [-- --quick] [-- --only headroom|fidelity|repeatability] [-- --json FILE]
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { k6Path } from "@sfbench/services";
import { listFlag, parseFlags } from "./lib/flags.ts";
import { fidelity, type FidelityResult } from "./fidelity.ts";
import { headroom, type HeadroomResult } from "./headroom.ts";
import { interrupted } from "./lib/children.ts";
import { describeSplit, machine, split } from "./lib/machine.ts";
import { describePriority, PRIORITY_NICE, prioritized, rerunPrioritized } from "./lib/priority.ts";
import { fidelitySection, figureRows, figuresTable, headroomSection, machineSection, repeatabilitySection } from "./lib/report.ts";
import { repeatability, type RepeatabilityResult } from "./repeatability.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const BENCHMARKS = ["headroom", "fidelity", "repeatability"] as const;
type Benchmark = (typeof BENCHMARKS)[number];

const USAGE = `usage: npm run bench:harness -- [--quick] [--only ${BENCHMARKS.join("|")}[,...]] [--json FILE] [--priority]
  --quick     short profile (about a minute per benchmark; repeatability uses --profile quick)
  --only      run only these benchmarks (comma-separated)
  --json      also write every figure and probe as JSON to FILE
  --priority  run in a session of its own at nice ${PRIORITY_NICE} (root): other processes on a shared machine disturb less`;

function parse(argv: string[]): { quick: boolean; only: Benchmark[]; json?: string; priority: boolean } {
  const values = parseFlags(argv, { quick: { type: "boolean" }, only: { type: "string" }, json: { type: "string" }, priority: { type: "boolean" } }, USAGE);
  // in the harness's order, whatever the order given
  const names = listFlag("only", values.only, BENCHMARKS);
  const only = BENCHMARKS.filter((b) => names.includes(b));
  return { quick: values.quick ?? false, only, json: values.json, priority: values.priority ?? false };
}

/** k6 v1.8.1: $K6, else @sfbench/services' k6Path(), which installs it when missing (never a developer's ~/go/bin). */
async function k6Binary(): Promise<string> {
  return process.env.K6 ?? (await k6Path({ onProgress: (m) => log(`k6: ${m}`) }));
}

const log = (m: string) => process.stderr.write(`[harness ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

async function main(): Promise<number> {
  let opts: ReturnType<typeof parse>;
  try {
    opts = parse(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (opts.priority && !prioritized()) return rerunPrioritized(log);
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: stopping`);
      void interrupted().finally(() => process.exit(130));
    });
  }
  const priority = describePriority();
  const command = `bench:harness${opts.quick ? " --quick" : ""} --only ${opts.only.join(",")}${opts.priority ? " --priority" : ""}`;
  const k6 = await k6Binary();
  const cpuSplit = split();
  const m = machine({ k6, wrk: opts.only.includes("headroom") ? "wrk" : undefined });
  const started = new Date();
  log(`${m.cpuModel}, ${m.cores} cores; ${describeSplit(cpuSplit)}; scheduling: ${priority}`);

  const results: { headroom?: HeadroomResult | Error; fidelity?: FidelityResult | Error; repeatability?: RepeatabilityResult | Error } = {};
  const sections: string[] = [];
  for (const b of opts.only) {
    const t = performance.now();
    try {
      if (b === "headroom") sections.push(headroomSection((results.headroom = await headroom({ k6, quick: opts.quick, split: cpuSplit, log }))));
      if (b === "fidelity") sections.push(fidelitySection((results.fidelity = await fidelity({ k6, quick: opts.quick, split: cpuSplit, log }))));
      if (b === "repeatability")
        sections.push(repeatabilitySection((results.repeatability = await repeatability({ quick: opts.quick, results: join(REPO, "results"), log }))));
      log(`${b} done in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      results[b] = err;
      sections.push(`== ${b}: ERROR ${err.message}`);
      log(`${b} failed: ${err.message}`);
    }
  }
  // the tools' versions once they are surely installed (wrk may have just been)
  const finalMachine = { ...machine({ k6, wrk: opts.only.includes("headroom") ? "wrk" : undefined }), loadAverage1m: m.loadAverage1m };
  const rows = figureRows(results);
  process.stdout.write(
    [
      machineSection(finalMachine, command),
      `CPU split: ${describeSplit(cpuSplit)}; scheduling: ${priority}`,
      `started ${started.toISOString()}, took ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s`,
      "",
      ...sections.flatMap((s) => [s, ""]),
      "== figures",
      figuresTable(rows),
      "",
    ].join("\n"),
  );
  if (opts.json) {
    const plain = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v instanceof Error ? { error: v.message } : v]));
    writeFileSync(
      opts.json,
      JSON.stringify(
        {
          command,
          machine: finalMachine,
          cpuSplit: describeSplit(cpuSplit),
          scheduling: priority,
          startedAt: started.toISOString(),
          figures: rows,
          results: plain,
        },
        null,
        2,
      ) + "\n",
    );
  }
  return rows.some((r) => r.verdict === "ERROR") ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`bench:harness: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
