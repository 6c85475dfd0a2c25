/**
 * The leaderboard's filters and sort order: a zod schema for the tRPC input,
 * and a lenient reader for the page's search params (a bad value falls back to
 * its default instead of failing the page).
 */
import { DISTRIBUTIONS, ENVIRONMENT_KINDS, PROFILES, WORKLOADS, type Distribution, type Workload } from "@sfbench/core/contract";
import { z } from "zod";
import { DURABILITY } from "@sfbench/core/manifest";
import { ShowTuned } from "./implementation.ts";

export type RateKey = `${Workload}.${Distribution}`;
/** one sortable rate column per cell: `checkout.uniform`, ... */
export const RATE_KEYS = WORKLOADS.flatMap((w) => DISTRIBUTIONS.map((d) => `${w}.${d}` as RateKey)) as [RateKey, ...RateKey[]];

export const SORT_KEYS = ["system", ...RATE_KEYS, "p50", "p99", "errorRate", "throughputPerCore", "anomalies", "loc", "rating"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** lower is better for these; they sort ascending first */
export const ASCENDING_FIRST: readonly SortKey[] = ["system", "p50", "p99", "errorRate", "anomalies", "loc"];

/** what the leaderboard shows: sustainable rates per cell (default), or the microbenchmarks' headline figures (docs/spec.md 8) */
export const LEADERBOARD_VIEWS = ["rates", "micro"] as const;
export type LeaderboardView = (typeof LEADERBOARD_VIEWS)[number];

export const LeaderboardFilter = z.object({
  view: z.enum(LEADERBOARD_VIEWS).default("rates"),
  workload: z.enum(["all", ...WORKLOADS]).default("all"),
  distribution: z.enum(["all", ...DISTRIBUTIONS]).default("all"),
  /**
   * The population shown (server/queries/populations.ts): environment kind,
   * profile and machine class ("2 cores, AMD EPYC 9B14, 24 GiB"; "unrecorded"
   * for runs without one). Knees are ranked only within one population; a
   * piece left out comes from the board's default population.
   */
  kind: z.enum(ENVIRONMENT_KINDS).optional(),
  nodes: z.coerce.number().int().min(1).max(1000).optional(),
  profile: z.enum(PROFILES).optional(),
  machine: z.string().min(1).max(200).optional(),
  sort: z.enum(SORT_KEYS).default("checkout.uniform"),
  dir: z.enum(["asc", "desc"]).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  /** the durability level ranked (core DURABILITY); absent: durable. Rows of other levels are a click away, never ranked with these */
  durability: z.enum(DURABILITY).optional(),
  /** show tuned implementations too (hidden by default: shared/implementation.ts) */
  tuned: ShowTuned,
});
export type LeaderboardFilter = z.output<typeof LeaderboardFilter>;

type SearchParams = Record<string, string | string[] | undefined>;

/** Each valid parameter is kept; an invalid one is dropped (its default applies). */
export function readLeaderboardParams(params: SearchParams): LeaderboardFilter {
  const kept: Record<string, string> = {};
  for (const key of Object.keys(LeaderboardFilter.shape) as (keyof typeof LeaderboardFilter.shape)[]) {
    const raw = params[key];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined || value === "") continue;
    if (LeaderboardFilter.shape[key].safeParse(value).success) kept[key] = value;
  }
  return LeaderboardFilter.parse(kept);
}

/** The default direction of a sort key: best first. */
export function defaultDir(sort: SortKey): "asc" | "desc" {
  return ASCENDING_FIRST.includes(sort) ? "asc" : "desc";
}

/** "all" workloads on the leaderboard: the application's two (contention is a focused test, shown when chosen) */
const OVERVIEW_WORKLOADS: readonly Workload[] = WORKLOADS.filter((w) => w !== "contention");

/** The workloads and distributions whose sustainable rate the table shows, and the cell the latency columns come from. */
export function shownCells(filter: Pick<LeaderboardFilter, "workload" | "distribution">) {
  const workloads = filter.workload === "all" ? OVERVIEW_WORKLOADS : ([filter.workload] as const);
  const distributions = filter.distribution === "all" ? DISTRIBUTIONS : ([filter.distribution] as const);
  const rateKeys = workloads.flatMap((w) => distributions.map((d) => `${w}.${d}` as RateKey));
  const focus = {
    workload: filter.workload === "all" ? "checkout" : filter.workload,
    distribution: filter.distribution === "all" ? "uniform" : filter.distribution,
  } as const;
  return { rateKeys, focus };
}
