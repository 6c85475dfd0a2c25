/**
 * The leaderboard: one population at a time (populations.ts: environment
 * kind, profile, machine class), one row per system and node count in it (its
 * latest campaign, else its latest completed run with a ranked cell),
 * filtered, sorted (nulls last) and paged in memory from the few queries of
 * leaderboard-data.ts.
 *
 * A rate is the median of the campaign's counted trials with its interval (core stats)
 * (shared/trial-figures.ts). Sorted by a rate, medians with an interval come
 * first and share a rank when their intervals overlap (core tieGroups); a
 * figure of one run is provisional and listed after every ranked median,
 * without a rank.
 */
import { KNEE_STOP_TEXT, KNEE_STOPS, PUBLISHABLE_RESOLUTION, publishableResolution } from "@sfbench/core";
import { tieGroups } from "@sfbench/core/stats";
import type { Db, EnvironmentKind, LocCounts } from "@sfbench/db";
import type { Durability } from "@sfbench/core/manifest";
import { byDurability, byImplementation, DEFAULT_DURABILITY, type ImplementationClass } from "../../shared/implementation.ts";
import { defaultDir, RATE_KEYS, shownCells, type LeaderboardFilter, type RateKey, type SortKey } from "../../shared/leaderboard-params.ts";
import { provisional, REFERENCE_TARGET, trialFigure, type TrialFigure, type TrialValue } from "../../shared/trial-figures.ts";
import { env } from "../../env.ts";
import { boardPopulations, leaderboardData } from "./leaderboard-cache.ts";
import {
  ranked,
  sameTrialsAs,
  type CellNumbers,
  type LeaderboardData,
  type RatingSummary,
  type RunMeta,
  type SmokeRun,
  type UnrankedAttempt,
} from "./leaderboard-data.ts";
import { choosePopulation, samePopulation, type Population, type PopulationKey } from "./populations.ts";

export const PAGE_SIZE = 50;

/** The focus cell's figures that are medians across trials, and so ranked with ties like the rates. */
export const FOCUS_METRICS = ["p50", "p99", "throughputPerCore"] as const;
export type FocusMetric = (typeof FOCUS_METRICS)[number];
const isFocusMetric = (key: string): key is FocusMetric => (FOCUS_METRICS as readonly string[]).includes(key);

export interface LeaderboardRow extends ImplementationClass {
  slug: string;
  name: string;
  runId: string;
  version: string;
  environmentKind: EnvironmentKind;
  nodes: number;
  finishedAt: Date;
  /** completed (the conformance suite passed), every cell valid, and the manifest known */
  verified: boolean;
  /** the run's profile, shown next to its numbers */
  profile: string;
  /** the campaign whose trials the figures are the median of; null: a single run (provisional) */
  campaignId: string | null;
  machineClass: string | null;
  /** the campaign's trials counted for this row (each trial once); 1 for a single run */
  trials: number;
  /** how many of them the machine was busy in (repeated trials that stayed busy) */
  busyTrials: number;
  /** sustainable rate per workload.distribution: the median of the ranked trials (valid, knee known to 10%); absent when not measured */
  rates: Partial<Record<RateKey, number | null>>;
  /** per rate: n, median, min, max, the median's interval and ratio to the reference */
  figures: Partial<Record<RateKey, TrialFigure>>;
  /** where the row stands when the board is sorted by a rate: rank (shared by tied rows), tied, provisional */
  standing: Standing | null;
  /** the knee's resolution of each ranked rate */
  resolutions: Partial<Record<RateKey, number>>;
  /** cells that ran but are invalid: never shown as numbers */
  invalid: Partial<Record<RateKey, string>>;
  /** valid cells whose knee is not known to 10% (smoke tests): on the run page only; why */
  smoke: Partial<Record<RateKey, string>>;
  /**
   * p50/p99/error rate/throughput per core/anomalies of the focus cell (stable
   * load at 80%); p50, p99 and per core are the medians of the campaign's
   * counted trials, like the rates
   */
  focus: Pick<CellNumbers, "p50" | "p99" | "errorRate" | "throughputPerCore" | "anomaliesTotal"> | null;
  /** per focus figure: n, median, min, max and the median's interval across the counted trials (one run: provisional) */
  focusFigures: Partial<Record<FocusMetric, TrialFigure>>;
  loc: { app: number; gateway: number } | null;
  ratings: RatingSummary | null;
  /**
   * every campaign this version ran here (oldest first) with its checkout
   * uniform median: the row shows the latest, never the best, and says how
   * many there were and how far apart their medians are
   */
  versionCampaigns: { campaignId: string; finishedAt: Date; median: number }[];
  /** the system's latest attempt here, when it came after the ranked run shown and is not ranked (failed, anomalies, ...) */
  laterUnranked: UnrankedAttempt | null;
}

export interface Leaderboard {
  filter: LeaderboardFilter;
  /**
   * what a rate sort ranks by: the medians when the ranked rows come from one
   * campaign; each row's ratio to the reference in its own campaign's rounds
   * when they come from several (absolute rates move with the machine's day,
   * the ratio much less)
   */
  rankedBy: "median" | "ratio";
  dir: "asc" | "desc";
  rateKeys: RateKey[];
  focus: { workload: string; distribution: string };
  rows: LeaderboardRow[];
  total: number;
  /** rows of tuned implementations left out (filter.tuned shows them) */
  hiddenTuned: number;
  /** the durability level ranked, and how many rows of the population each other level has (each its own board) */
  durability: Durability;
  otherLevels: { level: Durability; rows: number }[];
  page: number;
  pages: number;
  environments: { kind: EnvironmentKind; nodes: number }[];
  /** the population shown: every rank, tie and ratio is computed within it */
  population: PopulationKey;
  /** every population with ranked runs, the shown one included (how many systems each has) */
  populations: Population[];
  /** recent completed runs without a ranked number (smoke tests): shown under the table, never ranked */
  smoke: SmokeRun[];
  /** systems of the population with no ranked run in it: below the ranked rows, each with why */
  unranked: UnrankedAttempt[];
}

function locTotals(loc: LocCounts | null): LeaderboardRow["loc"] {
  if (!loc) return null;
  const counts = Object.values(loc);
  return counts.reduce((sum, c) => ({ app: sum.app + (c?.app ?? 0), gateway: sum.gateway + (c?.gateway ?? 0) }), { app: 0, gateway: 0 });
}

export interface Standing {
  /** 1 = best; rows whose intervals overlap share the rank of the best of them; null: provisional (not ranked) */
  rank: number | null;
  /** how many other rows share the rank */
  tiedWith: number;
  provisional: boolean;
  /** why a provisional row is not ranked, when it is not its number of trials */
  because?: string;
}

/** Per rate, the counted trials' values of a row (its campaign's trials of its own system, or of the reference). */
function trialValues(data: LeaderboardData, run: RunMeta, slug: string): Map<RateKey, TrialValue[]> | null {
  if (!run.campaignId) return null;
  const trials = data.trials.filter((t) => t.slug === slug && sameTrialsAs(run, t));
  if (!trials.length) return null;
  const out = new Map<RateKey, TrialValue[]>(RATE_KEYS.map((k) => [k, []]));
  for (const t of trials) {
    const cells = data.trialCells.get(t.runId) ?? [];
    for (const key of RATE_KEYS) {
      const cell = cells.find((c) => `${c.workload}.${c.distribution}` === key);
      out.get(key)!.push({ round: t.round, rate: cell?.ranked ? cell.sustainableRate : null });
    }
  }
  return out;
}

/** Per rate, the figure of a shown run: its campaign's counted trials (with the reference's for the ratio), or the run alone. */
export function runFigures(data: LeaderboardData, run: RunMeta): Partial<Record<RateKey, TrialFigure>> {
  const own = trialValues(data, run, run.slug);
  const reference = run.slug === REFERENCE_TARGET ? null : trialValues(data, run, REFERENCE_TARGET);
  const figures: Partial<Record<RateKey, TrialFigure>> = {};
  for (const cell of data.cells.get(run.runId) ?? []) {
    const key = `${cell.workload}.${cell.distribution}` as RateKey;
    const values = own?.get(key) ?? [{ round: null, rate: ranked(cell) ? cell.sustainableRate : null }];
    const figure = trialFigure(values, reference ? { name: REFERENCE_TARGET, trials: reference.get(key) ?? [] } : undefined);
    if (figure) figures[key] = figure;
  }
  return figures;
}

/** The focus cell's p50, p99 and per-core figures across the row's counted trials (ranked cells only), else the run's own. */
function focusTrialFigures(data: LeaderboardData, run: RunMeta, cell: CellNumbers, focusKey: string): LeaderboardRow["focusFigures"] {
  const trials = run.campaignId ? data.trials.filter((t) => t.slug === run.slug && sameTrialsAs(run, t)) : [];
  const figures: LeaderboardRow["focusFigures"] = {};
  for (const metric of FOCUS_METRICS) {
    const values = trials.length
      ? trials.map((t) => {
          const c = (data.trialCells.get(t.runId) ?? []).find((x) => x.ranked && `${x.workload}.${x.distribution}` === focusKey);
          return { round: t.round, rate: c?.[metric] ?? null };
        })
      : [{ round: null, rate: cell[metric] }];
    const figure = trialFigure(values);
    if (figure) figures[metric] = figure;
  }
  return figures;
}

function toRow(data: LeaderboardData, run: RunMeta, cells: CellNumbers[], ratings: RatingSummary | undefined, focusKey: string): LeaderboardRow {
  const rates: LeaderboardRow["rates"] = {};
  const resolutions: LeaderboardRow["resolutions"] = {};
  const invalid: LeaderboardRow["invalid"] = {};
  const smoke: LeaderboardRow["smoke"] = {};
  const figures = runFigures(data, run);
  for (const cell of cells) {
    const key = `${cell.workload}.${cell.distribution}` as RateKey;
    const figure = figures[key];
    if (figure) {
      // the median of the ranked trials, even when the latest trial's own cell is not ranked
      rates[key] = figure.median;
      if (ranked(cell)) resolutions[key] = cell.kneeResolution!;
    } else if (!cell.valid) invalid[key] = cell.invalidReason ?? "invalid";
    else if (ranked(cell)) rates[key] = null;
    else smoke[key] = smokeReason(cell);
  }
  const counted = run.campaignId ? data.trials.filter((t) => t.slug === run.slug && sameTrialsAs(run, t)) : [];
  // the latency columns come from the stable phase at 80% of a ranked sustainable rate only
  const focusCell = cells.find((c) => ranked(c) && `${c.workload}.${c.distribution}` === focusKey);
  const focusFigures = focusCell ? focusTrialFigures(data, run, focusCell, focusKey) : {};
  return {
    slug: run.slug,
    name: run.name,
    runId: run.runId,
    version: run.version,
    implementation: run.implementation,
    guarantees: run.guarantees,
    environmentKind: run.environmentKind,
    nodes: run.nodes,
    finishedAt: run.finishedAt,
    // verified: the suite passed, every cell is valid and its audit found nothing wrong
    verified: run.manifestKnown && cells.length > 0 && cells.every((c) => c.valid && c.anomaliesTotal === 0),
    profile: run.profile,
    campaignId: run.campaignId,
    machineClass: run.machineClass,
    trials: Math.max(1, counted.length),
    busyTrials: counted.filter((t) => t.busy).length,
    rates,
    figures,
    standing: null,
    resolutions,
    invalid,
    smoke,
    focus: focusCell
      ? {
          p50: focusFigures.p50?.median ?? focusCell.p50,
          p99: focusFigures.p99?.median ?? focusCell.p99,
          errorRate: focusCell.errorRate,
          throughputPerCore: focusFigures.throughputPerCore?.median ?? focusCell.throughputPerCore,
          anomaliesTotal: focusCell.anomaliesTotal,
        }
      : null,
    focusFigures,
    loc: locTotals(run.loc),
    ratings: ratings ?? null,
    versionCampaigns: data.versionCampaigns
      .filter((c) => c.systemId === run.systemId && c.version === run.version && c.environmentKind === run.environmentKind && c.nodes === run.nodes)
      .map(({ campaignId, finishedAt, median }) => ({ campaignId, finishedAt, median })),
    laterUnranked:
      data.unranked.find(
        (u) => u.systemId === run.systemId && u.environmentKind === run.environmentKind && u.nodes === run.nodes && u.finishedAt > run.finishedAt,
      ) ?? null,
  };
}

/** Why a valid cell is not ranked: the knee in the words of core's KNEE_STOP_TEXT, or what else rankable() said (anomalies, no audit). */
function smokeReason(cell: CellNumbers): string {
  if (cell.kneeResolution !== null && publishableResolution(cell.kneeResolution)) return `not ranked: ${cell.unrankedBecause ?? "see the run page"}`;
  const stop = KNEE_STOPS.find((k) => k === cell.kneeStoppedBecause);
  const why = stop ? KNEE_STOP_TEXT[stop] : "the run did not record its knee search";
  const res = cell.kneeResolution === null ? "not bracketed" : `known to ${Math.round(cell.kneeResolution * 100)}%`;
  return `smoke test, not ranked: the knee is ${res} (ranked: ${Math.round(PUBLISHABLE_RESOLUTION * 100)}% or better); ${why}`;
}

function sortValue(row: LeaderboardRow, key: SortKey): number | string | null {
  switch (key) {
    case "system":
      return row.name.toLowerCase();
    case "p50":
      return row.focus?.p50 ?? null;
    case "p99":
      return row.focus?.p99 ?? null;
    case "errorRate":
      return row.focus?.errorRate ?? null;
    case "throughputPerCore":
      return row.focus?.throughputPerCore ?? null;
    case "anomalies":
      return row.focus?.anomaliesTotal ?? null;
    case "loc":
      return row.loc ? row.loc.app + row.loc.gateway : null;
    case "rating":
      return row.ratings ? (row.ratings.programmingModel + row.ratings.understandability) / 2 : null;
    default:
      return row.rates[key] ?? null;
  }
}

/** Sorted rows per data snapshot and view: a cached snapshot is filtered and sorted once, then only paged. */
const views = new WeakMap<LeaderboardData, Map<string, SortedRows>>();

interface SortedRows {
  rows: LeaderboardRow[];
  hiddenTuned: number;
  otherLevels: Leaderboard["otherLevels"];
  rankedBy: Leaderboard["rankedBy"];
}

/**
 * A row's rate as a ratio to the reference measured in the same rounds of its
 * campaign, as a figure to rank by; the reference's own row is 1 exactly.
 * Undefined without a ratio (no reference in its campaign, or a single run).
 */
export function ratioFigure(row: LeaderboardRow, key: RateKey): TrialFigure | undefined {
  const f = row.figures[key];
  if (!f) return undefined;
  if (row.slug === REFERENCE_TARGET) return { n: f.n, median: 1, min: 1, max: 1, interval: f.interval && { low: 1, high: 1 }, withinShareOfMedian: 0 };
  if (!f.ratio) return undefined;
  const { n, ratio, interval } = f.ratio;
  return { n, median: ratio, min: ratio, max: ratio, interval, withinShareOfMedian: null };
}

function sortedRows(data: LeaderboardData, filter: LeaderboardFilter, dir: "asc" | "desc"): SortedRows {
  const { rateKeys, focus } = shownCells(filter);
  const level = filter.durability ?? DEFAULT_DURABILITY;
  const key = [filter.workload, filter.distribution, filter.sort, dir, filter.tuned, level].join("|");
  let byView = views.get(data);
  if (!byView) views.set(data, (byView = new Map()));
  const cached = byView.get(key);
  if (cached) return cached;
  const focusKey = `${focus.workload}.${focus.distribution}`;
  let rows = data.runs.map((run) => toRow(data, run, data.cells.get(run.runId) ?? [], data.ratings.get(run.systemId), focusKey));
  if (filter.workload !== "all" || filter.distribution !== "all") {
    rows = rows.filter((row) => rateKeys.some((k) => k in row.rates));
  }
  const { shown, hiddenTuned } = byImplementation(rows, filter.tuned);
  const { shown: atLevel, otherLevels } = byDurability(shown, level);
  rows = atLevel;
  const sign = dir === "asc" ? 1 : -1;
  const rateSort = (RATE_KEYS as readonly string[]).includes(filter.sort) ? (filter.sort as RateKey) : null;
  const focusSort = isFocusMetric(filter.sort) ? filter.sort : null;
  const campaigns = rateSort ? new Set(rows.filter((r) => !provisional(r.figures[rateSort])).map((r) => r.campaignId)) : new Set();
  const byRatio = rateSort !== null && campaigns.size > 1;
  const rateFigure = (row: LeaderboardRow) => (rateSort ? (byRatio ? ratioFigure(row, rateSort) : row.figures[rateSort]) : undefined);
  // sorted by a rate or a focus median: ranked medians first, provisional figures after them (either direction)
  const tier = (row: LeaderboardRow) =>
    (rateSort && row.rates[rateSort] != null && provisional(rateFigure(row))) ||
    (focusSort && row.focusFigures[focusSort] && provisional(row.focusFigures[focusSort]))
      ? 1
      : 0;
  const value = (row: LeaderboardRow) => (byRatio ? (rateFigure(row)?.median ?? null) : sortValue(row, filter.sort));
  const keyed = rows.map((row) => ({ row, tier: tier(row), value: value(row), name: row.name.toLowerCase() }));
  keyed.sort((a, b) => {
    const x = a.value;
    const y = b.value;
    if (x !== null && y !== null && a.tier !== b.tier) return a.tier - b.tier;
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1; // nulls last, either way
    } else if (x !== y) return x < y ? -sign : sign;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : a.row.nodes - b.row.nodes;
  });
  const sortedRows = keyed.map((k) => k.row);
  if (rateSort) standings(sortedRows, rateFigure, false);
  if (rateSort && byRatio) {
    for (const r of sortedRows) {
      if (!r.standing && r.figures[rateSort]) {
        r.standing = { rank: null, tiedWith: 0, provisional: true, because: `no ratio: ${REFERENCE_TARGET} was not measured in the same rounds` };
      }
    }
  } else if (isFocusMetric(filter.sort)) {
    const metric = filter.sort;
    standings(sortedRows, (r) => r.focusFigures[metric], defaultDir(metric) === "asc");
  }
  const sorted: SortedRows = { rows: sortedRows, hiddenTuned, otherLevels, rankedBy: byRatio ? "ratio" : "median" };
  byView.set(key, sorted);
  return sorted;
}

const rowKey = (row: LeaderboardRow) => `${row.slug}:${row.environmentKind}:${row.nodes}`;

/**
 * Ranks by a figure's median, best first (`lowerIsBetter`: latency); rows whose
 * medians' intervals overlap are one tie group and share the best rank among them;
 * a provisional figure is shown without a rank.
 */
function standings(rows: LeaderboardRow[], figureOf: (row: LeaderboardRow) => TrialFigure | undefined, lowerIsBetter: boolean): void {
  const withFigure = rows.filter((r) => figureOf(r));
  const rankedRows = withFigure.filter((r) => !provisional(figureOf(r)));
  const byKey = new Map(rankedRows.map((r) => [rowKey(r), r]));
  // tieGroups orders by the highest median first: a lower-is-better figure goes in negated (its interval with it)
  const sign = lowerIsBetter ? -1 : 1;
  let rank = 1;
  const groups = tieGroups(
    rankedRows.map((r) => {
      const f = figureOf(r)!;
      const interval = f.interval && (lowerIsBetter ? { low: -f.interval.high, high: -f.interval.low } : f.interval);
      return { name: rowKey(r), median: sign * f.median, interval };
    }),
  );
  for (const group of groups) {
    for (const name of group) byKey.get(name)!.standing = { rank, tiedWith: group.length - 1, provisional: false };
    rank += group.length;
  }
  for (const r of withFigure) if (provisional(figureOf(r))) r.standing = { rank: null, tiedWith: 0, provisional: true };
}

/** The population a filter shows (its own pieces, the rest from the board's default), with every population there is. */
export async function boardPopulation(
  db: Db,
  filter: Pick<LeaderboardFilter, "kind" | "profile" | "machine">,
): Promise<{ population: PopulationKey; populations: Population[] }> {
  const populations = await boardPopulations(db);
  const population = choosePopulation(populations, filter, env.SFBENCH_REFERENCE_MACHINE);
  const sorted = [...populations].sort((a, b) => Number(samePopulation(b, population)) - Number(samePopulation(a, population)) || b.systems - a.systems);
  return { population, populations: sorted };
}

/** The population's systems (per environment) that have no ranked run in it, by name. */
function unrankedBelow(data: LeaderboardData): UnrankedAttempt[] {
  const shown = new Set(data.runs.map((r) => `${r.systemId}:${r.environmentKind}:${r.nodes}`));
  return data.unranked
    .filter((u) => !shown.has(`${u.systemId}:${u.environmentKind}:${u.nodes}`))
    .sort((a, b) => a.name.localeCompare(b.name) || a.nodes - b.nodes);
}

export async function getLeaderboard(db: Db, filter: LeaderboardFilter): Promise<Leaderboard> {
  const { population, populations } = await boardPopulation(db, filter);
  const data = await leaderboardData(db, {
    kind: population.kind,
    nodes: filter.nodes,
    profile: population.profile,
    machineClass: population.machineClass,
  });
  const { rateKeys, focus } = shownCells(filter);
  const dir = filter.dir ?? defaultDir(filter.sort);
  const { rows, hiddenTuned, otherLevels, rankedBy } = sortedRows(data, filter, dir);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const page = Math.min(filter.page, pages);
  return {
    filter,
    rankedBy,
    dir,
    rateKeys,
    focus,
    rows: rows.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    total: rows.length,
    hiddenTuned,
    durability: filter.durability ?? DEFAULT_DURABILITY,
    otherLevels,
    page,
    pages,
    environments: data.environments,
    population,
    populations,
    smoke: data.smoke,
    unranked: unrankedBelow(data),
  };
}
