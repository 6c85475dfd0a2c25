/**
 * Repeatability: two campaigns back to back, each through the CLI exactly as
 * a user runs it (`sfbench campaign --targets ... --trials N --reference
 * node-postgres`), then per system both medians, their difference, the
 * half-widths of both medians' intervals, and whether systems whose intervals do not overlap
 * kept their order. Goals: medians within 10% of each other, intervals no
 * wider than +-10% of the median.
 *
 *   npm run bench:repeatability [-- --quick] [-- --targets a,b] [-- --trials N] [-- --busy-repeats N] [-- --results DIR] [-- --json FILE]
 *   npm run bench:repeatability -- --compare A,B    (two kept campaigns, nothing run)
 *
 * Full: every bundled target, 3 trials each, standard profile. --quick:
 * node-postgres and durable-objects (neither needs a build), 2 trials, quick
 * profile. --trials sets the trials per system: a system whose knee varies
 * by a CV of c needs about n with t(n-1) * c / sqrt(n) <= 10% to meet the
 * interval goal (c = 4% at 3 trials, 8% at 5). The campaigns' documents go
 * under DIR/campaigns/ (default the repository's results/, kept in git).
 * --compare prints the same comparison from two campaigns already kept there,
 * so that a comparison quoted in docs/measurements.md can be made again from
 * the stored documents.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DISTRIBUTION_CHOICES, MAX_BUSY_REPEATS, overlaps, parseCampaign, type CampaignDocument, type CellStatistics } from "@sfbench/core";
import { listTargets } from "@sfbench/catalogue";
import { HarnessError, interrupted, runCommand } from "./lib/children.ts";
import { intFlag, parseFlags, UsageError } from "./lib/flags.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(REPO, "packages/cli/bin/sfbench.mjs");

/** the two campaigns' medians within 10% of each other */
export const MEDIAN_GOAL = 0.1;
/** each median's interval no wider than +-10% of it */
export const INTERVAL_GOAL = 0.1;
export const REFERENCE = "node-postgres";
/** the quick campaigns' second target: it needs no build and no service, so the quick version starts fast */
export const QUICK_OTHER = "durable-objects";
/** trials per system and campaign: an interval needs two, and more than this belongs to several campaigns */
export const TRIALS_BOUNDS = { min: 2, max: 20 } as const;

export interface SystemRepeat {
  target: string;
  cell: string;
  medians: [number | null, number | null];
  /** |b - a| / a */
  difference: number | null;
  /** each interval's half-width over its median */
  halfWidths: [number | null, number | null];
  medianPass: boolean;
  intervalPass: boolean;
}

export interface RepeatabilityResult {
  /** the campaign command run twice, or what was compared */
  command: string;
  /** the two campaigns were run for this comparison, or read from kept documents */
  source: "ran" | "kept";
  campaigns: [string, string];
  systems: SystemRepeat[];
  /** pairs of systems whose intervals did not overlap in the first campaign, and whether the second kept their order */
  order: Array<{ cell: string; higher: string; lower: string; kept: boolean }>;
  /** counted trials that gave no figure for some cell, and why: the reason a median stands on fewer trials or an interval is missing */
  noFigure: Array<{ campaign: 1 | 2; target: string; round: number; why: string }>;
  goals: { median: number; interval: number };
}

const cellOf = (c: { workload: string; distribution: string }) => `${c.workload}/${c.distribution}`;
const halfWidth = (s: CellStatistics | undefined) => (s?.interval && s.median ? (s.interval.high - s.interval.low) / 2 / s.median : null);

/** Compares two campaigns over the same targets and cells. */
export function compareCampaigns(
  a: CampaignDocument,
  b: CampaignDocument,
  files: [string, string],
  command: string,
  source: RepeatabilityResult["source"] = "ran",
): RepeatabilityResult {
  const find = (doc: CampaignDocument, s: CellStatistics) => doc.statistics.find((x) => x.target === s.target && cellOf(x) === cellOf(s));
  const systems = a.statistics.map((sa): SystemRepeat => {
    const sb = find(b, sa);
    const medians: [number | null, number | null] = [sa.median, sb?.median ?? null];
    const difference = medians[0] && medians[1] !== null ? Math.abs(medians[1] - medians[0]) / medians[0] : null;
    const halfWidths: [number | null, number | null] = [halfWidth(sa), halfWidth(sb)];
    return {
      target: sa.target,
      cell: cellOf(sa),
      medians,
      difference,
      halfWidths,
      medianPass: difference !== null && difference <= MEDIAN_GOAL,
      intervalPass: halfWidths.every((h) => h !== null && h <= INTERVAL_GOAL),
    };
  });
  const order: RepeatabilityResult["order"] = [];
  for (const x of a.statistics) {
    for (const y of a.statistics) {
      if (
        cellOf(x) !== cellOf(y) ||
        x.median === null ||
        y.median === null ||
        x.median <= y.median ||
        !x.interval ||
        !y.interval ||
        overlaps(x.interval, y.interval)
      )
        continue;
      const bx = find(b, x)?.median ?? null;
      const by = find(b, y)?.median ?? null;
      order.push({ cell: cellOf(x), higher: x.target, lower: y.target, kept: bx !== null && by !== null && bx > by });
    }
  }
  const noFigure = [a, b].flatMap((doc, i) =>
    doc.trials
      .filter((t) => t.counted && (t.status !== "completed" || t.notes.length > 0))
      .map((t) => ({ campaign: (i + 1) as 1 | 2, target: t.target, round: t.round, why: t.notes.join("; ") || t.status })),
  );
  return { command, source, campaigns: files, systems, order, noFigure, goals: { median: MEDIAN_GOAL, interval: INTERVAL_GOAL } };
}

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? "-" : x.toFixed(0));
const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

export function repeatabilityReport(r: RepeatabilityResult): string {
  const rows = [
    [
      "cell",
      "system",
      "median 1",
      "median 2",
      "difference",
      "+- 1",
      "+- 2",
      `medians within ${pct(r.goals.median)}`,
      `intervals within +-${pct(r.goals.interval)}`,
    ],
    ...r.systems.map((s) => [
      s.cell,
      s.target,
      num(s.medians[0]),
      num(s.medians[1]),
      pct(s.difference),
      pct(s.halfWidths[0]),
      pct(s.halfWidths[1]),
      verdict(s.medianPass),
      verdict(s.intervalPass),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) =>
    row
      .map((v, i) => (i < 2 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
  const order = r.order.length
    ? r.order.map((o) => `${o.cell}: ${o.higher} above ${o.lower} (intervals apart in campaign 1): ${o.kept ? "kept" : "NOT kept"} in campaign 2`)
    : ["no two systems' intervals were apart in campaign 1: no order to keep"];
  const noFigure = r.noFigure.map((x) => `campaign ${x.campaign}: ${x.target} round ${x.round} gave no figure: ${x.why}`);
  const title = r.source === "ran" ? `${r.command} (twice)` : r.command;
  return [`== repeatability: ${title}`, `campaign 1: ${r.campaigns[0]}`, `campaign 2: ${r.campaigns[1]}`, ...lines, ...order, ...noFigure].join("\n") + "\n";
}

/** Runs one campaign through the CLI; its document. */
async function runCampaign(args: string[], results: string, n: number, log: (m: string) => void): Promise<{ doc: CampaignDocument; file: string }> {
  const before = new Set(campaignFolders(results));
  log(`campaign ${n}: sfbench ${args.join(" ")}`);
  let pending = "";
  const r = await runCommand(process.execPath, [CLI, ...args, "--results", results], {
    cwd: REPO,
    onStderr: (text) => {
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const l of lines) if (l.trim()) log(`campaign ${n}: ${l.trim()}`);
    },
  });
  const folder = campaignFolders(results).find((f) => !before.has(f));
  if (!folder)
    throw new HarnessError(
      `sfbench campaign ${n} ${r.signal ? `was killed by ${r.signal}` : `exited with ${r.code}`} without a campaign document; its last lines: ${r.stderr.trim().split("\n").slice(-3).join(" | ") || "(no output)"}`,
    );
  const kept = readCampaign(join(results, "campaigns", folder, "campaign.json"));
  log(`campaign ${n}: ${kept.doc.status}, ${kept.doc.trials.length} trials (${kept.doc.busyRepeated} busy repeated) in ${kept.file}`);
  return kept;
}

function readCampaign(file: string): { doc: CampaignDocument; file: string } {
  const parsed = parseCampaign(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.ok) throw new HarnessError(`${file} does not validate: ${parsed.errors.slice(0, 3).join("; ")}`);
  return { doc: parsed.campaign, file };
}

/**
 * A kept campaign by its folder under DIR/campaigns/, the id that ends the
 * folder's name (as docs/measurements.md names them), or its campaign.json.
 */
export function keptCampaign(results: string, which: string): { doc: CampaignDocument; file: string } {
  const folders = campaignFolders(results).sort();
  const matches =
    existsSync(which) && which.endsWith(".json")
      ? [which]
      : folders.filter((f) => f === which || f.endsWith(`-${which}`)).map((f) => join(results, "campaigns", f, "campaign.json"));
  if (matches.length !== 1) {
    const kept = folders.map((f) => f.split("-").pop()).join(", ") || "none";
    throw new UsageError(
      `--compare: ${matches.length ? `${JSON.stringify(which)} names ${matches.length} campaigns` : `no campaign ${JSON.stringify(which)} in ${join(results, "campaigns")}`}; kept: ${kept}`,
    );
  }
  const file = matches[0]!;
  if (!existsSync(file)) throw new UsageError(`--compare: ${file} is missing (a campaign still running has none yet)`);
  return readCampaign(file);
}

/** Two kept campaigns compared; they must have been taken with one profile over one set of cells to be comparable. */
export function compareKept(results: string, which: [string, string]): RepeatabilityResult {
  const a = keptCampaign(results, which[0]);
  const b = keptCampaign(results, which[1]);
  const cells = (d: CampaignDocument) => d.cells.map(cellOf).join(", ");
  if (a.doc.profile !== b.doc.profile || a.doc.experiment !== b.doc.experiment || cells(a.doc) !== cells(b.doc))
    throw new UsageError(
      `--compare: ${which[0]} is ${a.doc.profile} ${a.doc.experiment} over ${cells(a.doc)}, ${which[1]} ${b.doc.profile} ${b.doc.experiment} over ${cells(b.doc)}: compare campaigns of one profile, experiment and cells`,
    );
  const trials = (d: CampaignDocument) => `${d.trialsPerTarget} trials, ${d.startedAt.slice(0, 16).replace("T", " ")}`;
  const command = `kept campaigns ${which[0]} (${trials(a.doc)}) and ${which[1]} (${trials(b.doc)}), ${a.doc.profile}`;
  return compareCampaigns(a.doc, b.doc, [a.file, b.file], command, "kept");
}

function campaignFolders(results: string): string[] {
  try {
    return readdirSync(join(results, "campaigns"));
  } catch {
    return [];
  }
}

export async function repeatability(opts: {
  quick: boolean;
  targets?: string[];
  /** trials per system in each campaign (default 3, or 2 with quick) */
  trials?: number;
  /** the campaigns' distribution (the CLI's default, both, when absent) */
  distribution?: (typeof DISTRIBUTION_CHOICES)[number];
  /** how often a campaign repeats a trial taken while the machine was busy (the CLI's default when absent) */
  busyRepeats?: number;
  results: string;
  log: (m: string) => void;
}): Promise<RepeatabilityResult> {
  const targets =
    opts.targets ??
    (opts.quick
      ? [REFERENCE, QUICK_OTHER]
      : listTargets()
          .map((t) => t.manifest.name)
          .sort((a, b) => (a === REFERENCE ? -1 : b === REFERENCE ? 1 : a.localeCompare(b))));
  const args = [
    "campaign",
    "--targets",
    targets.join(","),
    "--trials",
    String(opts.trials ?? (opts.quick ? 2 : 3)),
    "--profile",
    opts.quick ? "quick" : "standard",
    ...(opts.distribution ? ["--distribution", opts.distribution] : []),
    ...(opts.busyRepeats !== undefined ? ["--busy-repeats", String(opts.busyRepeats)] : []),
    ...(targets.includes(REFERENCE) ? ["--reference", REFERENCE] : []),
  ];
  const a = await runCampaign(args, opts.results, 1, opts.log);
  const b = await runCampaign(args, opts.results, 2, opts.log);
  return compareCampaigns(a.doc, b.doc, [a.file, b.file], `sfbench ${args.join(" ")}`);
}

const USAGE = `usage: npm run bench:repeatability -- [--quick] [--targets a,b] [--trials N] [--busy-repeats N] [--distribution ${DISTRIBUTION_CHOICES.join("|")}] [--results DIR] [--json FILE]
  --quick         node-postgres and ${QUICK_OTHER}, 2 trials each, quick profile (default: every bundled target, 3 trials, standard)
  --targets       these bundled targets instead
  --trials        trials per system in each campaign, ${TRIALS_BOUNDS.min}..${TRIALS_BOUNDS.max} (more narrow the intervals; each costs one run per system, twice)
  --distribution  the checkout cells' product choice (default both: twice the time)
  --busy-repeats  repeat a trial taken while the machine was busy at most N times, 0..${MAX_BUSY_REPEATS} (default: sfbench campaign's)
  --results       the campaigns' folders go under DIR/campaigns/ (default the repository's results/)
  --json          also write the comparison as JSON to FILE
  --compare A,B   run nothing: compare two campaigns kept under DIR/campaigns/ (their folders or the ids that end them)`;

async function main(): Promise<number> {
  let values;
  let trials: number | undefined;
  let busyRepeats: number | undefined;
  try {
    values = parseFlags(
      process.argv.slice(2),
      {
        quick: { type: "boolean" },
        targets: { type: "string" },
        trials: { type: "string" },
        distribution: { type: "string" },
        "busy-repeats": { type: "string" },
        results: { type: "string" },
        json: { type: "string" },
        compare: { type: "string" },
      },
      USAGE,
    );
    if (values.trials !== undefined) trials = intFlag("trials", values.trials, 0, TRIALS_BOUNDS.min, TRIALS_BOUNDS.max);
    if (values["busy-repeats"] !== undefined) busyRepeats = intFlag("busy-repeats", values["busy-repeats"], 0, 0, MAX_BUSY_REPEATS);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const results = values.results ?? join(REPO, "results");
  if (values.compare !== undefined) {
    const which = values.compare.split(",").map((w) => w.trim());
    const running = ["quick", "targets", "trials", "distribution", "busy-repeats"].filter((f) => values[f as keyof typeof values] !== undefined);
    try {
      if (which.length !== 2 || which.some((w) => !w))
        throw new UsageError(`--compare: expected two kept campaigns, A,B, got ${JSON.stringify(values.compare)}`);
      if (running.length) throw new UsageError(`--compare runs nothing: ${running.map((f) => `--${f}`).join(", ")} would be ignored`);
      return report(compareKept(results, which as [string, string]), values.json);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      process.stderr.write(`${e.message}\n${USAGE}\n`);
      return 2;
    }
  }
  const log = (m: string) => process.stderr.write(`[repeatability ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void interrupted().finally(() => process.exit(130)));
  const distribution = values.distribution;
  if (distribution !== undefined && !(DISTRIBUTION_CHOICES as readonly string[]).includes(distribution)) {
    process.stderr.write(`--distribution: expected one of ${DISTRIBUTION_CHOICES.join(", ")}, got ${JSON.stringify(distribution)}\n${USAGE}\n`);
    return 2;
  }
  const targets = values.targets
    ?.split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const r = await repeatability({
    quick: values.quick ?? false,
    ...(targets?.length ? { targets } : {}),
    ...(trials !== undefined ? { trials } : {}),
    ...(busyRepeats !== undefined ? { busyRepeats } : {}),
    ...(distribution ? { distribution: distribution as (typeof DISTRIBUTION_CHOICES)[number] } : {}),
    results,
    log,
  });
  return report(r, values.json);
}

/** The comparison on stdout, and as JSON to `json` when given. */
function report(r: RepeatabilityResult, json: string | undefined): number {
  process.stdout.write(repeatabilityReport(r));
  if (json) writeFileSync(json, JSON.stringify(r, null, 2) + "\n");
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`bench:repeatability: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
