/**
 * Trials and campaigns: several targets' cells measured in randomised
 * interleaved rounds (every round one trial of each target, in a seeded
 * shuffled order), each trial a fresh `sfbench run` of its own with its own
 * result document, a busy trial repeated a bounded number of times, and a
 * campaign document with the statistics over the counted trials
 * (docs/running.md, "Trials and campaigns"). `sfbench run --trials N` is a
 * campaign of one target.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import {
  CAMPAIGN_SCHEMA_VERSION,
  cellName,
  cellStatistics,
  cellTieGroups,
  manifestDigest,
  parseCpuList,
  parseCampaign,
  parseResult,
  repeatBusy,
  type CampaignDocument,
  type CampaignTrial,
  type PopulatedState,
  type ResultDocument,
  type TrialFigures,
} from "@sfbench/core";
import { findTarget } from "@sfbench/catalogue";
import { buildTargetImage, defaultMachineClass } from "@sfbench/provider-container";
import { paths } from "@sfbench/services";
import { failedRunDocument, interleavedRounds, writeResult } from "@sfbench/engine";
import { campaignTable } from "./campaign-table.ts";
import { note } from "./progress.ts";
import { buildPopulatedOnce, runOnce, type RunOnceOptions } from "./run-once.ts";

import { bundledName } from "./campaign-limits.ts";

export { BUSY_REPEATS, MAX_TRIALS } from "./campaign-limits.ts";

export interface CampaignOptions {
  kind: CampaignDocument["kind"];
  targets: string[];
  trials: number;
  busyRepeats: number;
  orderSeed: number;
  reference?: string;
  /** the campaign's folder goes under <resultsRoot>/campaigns/ */
  resultsRoot: string;
  /** what every trial's run shares (target, results and the campaign tag are the campaign's) */
  run: Omit<RunOnceOptions, "target" | "url" | "image" | "manifest" | "resultsDir" | "campaign" | "nodes" | "scalability">;
  nodes?: number;
  /** the folder of target folders (default packages/targets) */
  targetsRoot?: string;
  /** the image each `NAME@image` entry of `targets` runs from (built before the first round) */
  images?: Record<string, string>;
  /**
   * Every trial seeds (and populates) its own target instead of starting from
   * a copy of the populated state built once per target before the first
   * round (default: the copy, with more than one trial).
   */
  seedEachTrial?: boolean;
}

export interface CampaignOutcome {
  code: number;
  doc: CampaignDocument;
  file: string;
  dir: string;
}

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");

/**
 * The image of every `NAME@image` entry, built (or found current) before the
 * first round; an entry that names no bundled target is refused here, before
 * anything is built.
 */
export async function campaignImages(targets: string[], targetsRoot?: string): Promise<Record<string, string>> {
  const entries = targets.filter((t) => t !== bundledName(t));
  for (const t of entries) findTarget(bundledName(t), targetsRoot);
  const images: Record<string, string> = {};
  for (const t of entries)
    images[t] = (await buildTargetImage(bundledName(t), { ...(targetsRoot ? { targetsRoot } : {}), onProgress: (m) => note(`${t}: ${m}`) })).ref;
  return images;
}

/** The campaign document's folder: results/campaigns/<UTC start>-<first 8 of the id>/. */
export const campaignDir = (root: string, startedAt: Date, id: string) => join(root, "campaigns", `${stamp(startedAt)}-${id.slice(0, 8)}`);

export async function runCampaign(opts: CampaignOptions): Promise<number> {
  const outcome = await campaign(opts);
  process.stdout.write(campaignTable(outcome.doc) + `\ncampaign: ${outcome.file}\n`);
  return outcome.code;
}

export async function campaign(opts: CampaignOptions): Promise<CampaignOutcome> {
  const campaignId = randomUUID();
  const startedAt = new Date();
  const dir = campaignDir(opts.resultsRoot, startedAt, campaignId);
  mkdirSync(dir, { recursive: true });
  const rounds = interleavedRounds(opts.targets, opts.trials, opts.orderSeed);
  const trials: CampaignTrial[] = [];
  const docs = new Map<string, ResultDocument>();
  let busyRepeated = 0;
  let error: string | undefined;
  note(
    `campaign ${campaignId}: ${opts.targets.join(", ")}, ${opts.trials} round${opts.trials === 1 ? "" : "s"} (order seed ${opts.orderSeed}), documents in ${dir}`,
  );
  // the copies of the targets' data are scratch: the build's records stay in its raw data, the copies go when the campaign ends
  const statesDir = join(paths.home, "populated", campaignId);
  const populated: PopulatedStates = [];
  try {
    // the throughput experiment's cells start on the catalogue (the others seed what they need themselves)
    if (!opts.seedEachTrial && opts.trials > 1 && opts.run.experiment === "throughput") populated.push(...(await buildStates(opts, statesDir)));
    for (const { round, order } of rounds) {
      for (const target of order) {
        for (let attempt = 1; ; attempt++) {
          note(`campaign: round ${round} of ${opts.trials}: ${target}${attempt > 1 ? ` (attempt ${attempt}: the last one was busy)` : ""}`);
          const tag = { campaignId, trial: round, round, attempt };
          const state = populated.find((p) => p.target === target)?.built;
          const { doc, file } = await oneTrial(opts, target, dir, tag, state);
          docs.set(doc.runId, doc);
          const busy = doc.noise?.busy === true;
          const repeat = repeatBusy(doc, attempt, opts.busyRepeats);
          trials.push({
            target,
            round,
            trial: round,
            attempt,
            runId: doc.runId,
            document: relative(dir, file),
            status: doc.status,
            counted: !repeat,
            ...(doc.noise ? { noise: doc.noise } : {}),
            notes: trialNotes(doc),
          });
          if (busy) note(`campaign: ${target}'s trial was busy: ${doc.noise!.busyBecause.join("; ")}${repeat ? "; once more" : "; counted (no repeats left)"}`);
          stopIfInterrupted(opts);
          if (!repeat) break;
          busyRepeated++;
        }
      }
    }
  } catch (e) {
    error = (e as Error).message;
  } finally {
    rmSync(statesDir, { recursive: true, force: true });
  }
  const doc = campaignDocument(opts, {
    campaignId,
    startedAt,
    rounds,
    trials,
    docs,
    busyRepeated,
    error,
    populatedStates: populated.map(({ target, built, reason }) => ({ target, ...(built ? { state: built.state } : {}), ...(reason ? { reason } : {}) })),
  });
  const parsed = parseCampaign(doc);
  if (!parsed.ok) throw new Error(`the campaign document does not validate (a bug): ${parsed.errors.slice(0, 5).join("; ")}`);
  const file = join(dir, "campaign.json");
  writeFileSync(file, JSON.stringify(parsed.campaign, null, 2) + "\n", { flag: "wx" });
  const allCompleted = trials.filter((t) => t.counted).every((t) => t.status === "completed");
  return { code: opts.run.signal?.aborted ? 130 : !error && allCompleted ? 0 : 1, doc: parsed.campaign, file, dir };
}

/** The campaign's command was interrupted (interrupt.ts): no further trial or build starts. */
class Interrupted extends Error {}

/** Throws Interrupted when the campaign's signal was aborted. */
function stopIfInterrupted(opts: CampaignOptions): void {
  const signal = opts.run.signal;
  if (signal?.aborted) throw new Interrupted(`interrupted: ${String(signal.reason ?? "the campaign was stopped")}`);
}

/** Why a trial gives no figure for a cell: its run's error, or each invalid cell's reason. */
export function trialNotes(doc: Pick<ResultDocument, "error" | "cells">): string[] {
  if (doc.error) return [`${doc.error.stage}: ${doc.error.message}`];
  return doc.cells.flatMap((c) => (c.valid ? [] : [`${cellName(c)}: ${c.invalidReason ?? "invalid"}`]));
}

type PopulatedStates = { target: string; built?: NonNullable<RunOnceOptions["populated"]>; reason?: string }[];

/** What a trial (or a populated state's build) of `target` runs as: the campaign's run options for it. */
function trialOptions(opts: CampaignOptions, target: string, resultsDir: string): RunOnceOptions {
  const image = opts.images?.[target];
  if (target !== bundledName(target) && !image) throw new Error(`${target}: no image was built for it`);
  return {
    ...opts.run,
    target: bundledName(target),
    ...(image ? { image, machine: defaultMachineClass() } : {}),
    resultsDir,
    ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}),
    ...(opts.targetsRoot ? { targetsRoot: opts.targetsRoot } : {}),
  };
}

/**
 * The populated state of every target, built once before the first round
 * (docs/running.md, "The populated state"): a target whose state cannot be
 * built (its provider cannot copy data, its build failed) has a reason, and
 * its trials seed and populate their own.
 */
async function buildStates(opts: CampaignOptions, statesDir: string): Promise<PopulatedStates> {
  const out: PopulatedStates = [];
  for (const target of opts.targets) {
    const dir = join(statesDir, target);
    note(`campaign: building ${target}'s populated state once for its ${opts.trials} trials`);
    try {
      const state: PopulatedState = await buildPopulatedOnce(trialOptions(opts, target, statesDir), dir);
      note(
        `campaign: ${target}'s populated state ${state.buildId.slice(0, 8)}: built in ${state.buildS.toFixed(0)} s, ${(state.bytes / 2 ** 20).toFixed(0)} MiB`,
      );
      out.push({ target, built: { restore: dir, state } });
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      stopIfInterrupted(opts);
      note(`campaign: ${target} has no populated state (its trials seed their own): ${e.message}`);
      out.push({ target, reason: e.message });
    }
  }
  return out;
}

/** One trial: a fresh run of the target (on its populated state, when it has one); a target that did not even start still gets a failed document, tagged. */
async function oneTrial(
  opts: CampaignOptions,
  target: string,
  dir: string,
  tag: NonNullable<RunOnceOptions["campaign"]>,
  populated: RunOnceOptions["populated"],
): Promise<{ doc: ResultDocument; file: string }> {
  try {
    const r = await runOnce({ ...trialOptions(opts, target, dir), campaign: tag, ...(populated ? { populated } : {}) });
    // a trial that wrote its document (interrupted while measuring) is kept by its round first
    if (r.file === undefined) stopIfInterrupted(opts);
    if (r.doc && r.file) return { doc: r.doc, file: r.file };
    if (r.file) return { doc: readDocument(r.file), file: r.file };
    throw new Error("the run wrote no result document");
  } catch (e) {
    // the campaign goes on: a target that cannot start in one round is a failed trial of that round
    if (!(e instanceof Error) || e instanceof Interrupted) throw e;
    const { manifest } = findTarget(bundledName(target), opts.targetsRoot);
    const doc: ResultDocument = {
      ...failedRunDocument({
        target: { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) },
        profile: opts.run.profile,
        startedAt: new Date(),
        stage: "provision",
        message: e.message,
        k6: opts.run.k6,
        repoRoot: paths.root,
        rawDir: join(paths.home, "runs"),
      }),
      campaign: tag,
    };
    note(`campaign: ${target} failed before measuring: ${e.message}`);
    return { doc, file: writeResult(dir, doc) };
  }
}

function readDocument(file: string): ResultDocument {
  const parsed = parseResult(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.ok) throw new Error(`${file} does not validate: ${parsed.errors.slice(0, 3).join("; ")}`);
  return parsed.result;
}

/** The campaign document from its trials' documents: the statistics over the counted trials (core campaign-stats.ts). */
export function campaignDocument(
  opts: Pick<CampaignOptions, "kind" | "targets" | "trials" | "busyRepeats" | "orderSeed" | "reference" | "run" | "targetsRoot">,
  c: {
    campaignId: string;
    startedAt: Date;
    rounds: CampaignDocument["rounds"];
    trials: CampaignTrial[];
    docs: Map<string, ResultDocument>;
    busyRepeated: number;
    error?: string;
    populatedStates?: CampaignDocument["populatedStates"];
  },
): CampaignDocument {
  const counted = c.trials.filter((t) => t.counted);
  const figures: TrialFigures[] = counted.map((t) => {
    const d = c.docs.get(t.runId)!;
    const knees: Record<string, number | null> = {};
    const kneeCoreShares: Record<string, number> = {};
    const given = d.environment.cpuSplit ? parseCpuList(d.environment.cpuSplit.target).length : 0;
    // a failed run's cells are not figures, even the ones it finished
    if (d.status === "completed")
      for (const cell of d.cells) {
        knees[cellName(cell)] = cell.valid ? (cell.maxThroughput?.sustainableRate ?? null) : null;
        const used = cell.maxThroughput?.kneeCores;
        if (cell.valid && used !== undefined && given > 0) kneeCoreShares[cellName(cell)] = Math.round((used / given) * 1000) / 1000;
      }
    return { target: t.target, round: t.round, busy: t.noise?.busy === true, knees, kneeCoreShares };
  });
  const statistics = cellStatistics({
    targets: opts.targets,
    cells: opts.run.cells,
    trials: figures,
    ...(opts.reference ? { reference: opts.reference } : {}),
  });
  const first = [...c.docs.values()][0];
  const env = first?.environment;
  const targets = opts.targets.map((name) => {
    const d = c.trials.filter((t) => t.target === name).map((t) => c.docs.get(t.runId))[0];
    if (d) return { name, version: d.target.version, manifestDigest: d.target.manifestDigest };
    const { manifest } = findTarget(bundledName(name), opts.targetsRoot);
    return { name, version: manifest.version, manifestDigest: manifestDigest(manifest) };
  });
  return {
    schemaVersion: CAMPAIGN_SCHEMA_VERSION,
    campaignId: c.campaignId,
    kind: opts.kind,
    status: c.error ? "failed" : "completed",
    ...(c.error ? { error: c.error } : {}),
    startedAt: c.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    profile: opts.run.profile,
    experiment: opts.run.experiment,
    cells: opts.run.cells.map((x) => ({ workload: x.workload, distribution: x.distribution })),
    runSeed: opts.run.seed,
    orderSeed: opts.orderSeed,
    targets,
    ...(opts.reference ? { reference: opts.reference } : {}),
    trialsPerTarget: opts.trials,
    busyRepeats: opts.busyRepeats,
    busyRepeated: c.busyRepeated,
    machine: {
      kind: env?.kind ?? "local",
      cpuModel: env?.cpuModel ?? "",
      cores: env?.cores ?? 1,
      memoryBytes: env?.memoryBytes ?? 0,
      os: env?.os ?? "",
      node: env?.node ?? process.version,
      k6Version: env?.k6Version ?? "",
      ...(env?.gitSha ? { gitSha: env.gitSha } : {}),
    },
    rounds: c.rounds,
    trials: c.trials,
    ...(c.populatedStates?.length ? { populatedStates: c.populatedStates } : {}),
    statistics,
    tieGroups: cellTieGroups(opts.run.cells, statistics),
  };
}
