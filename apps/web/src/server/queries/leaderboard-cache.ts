/**
 * The leaderboard's data, shared by every visitor and cached for
 * SFBENCH_LEADERBOARD_CACHE_SECONDS (stale-while-revalidate): results change
 * when a run completes, not per request. Each page load first asks the
 * database for the completed runs' count and latest finish (an index-only
 * scan): a run the worker completed (another process) shows on the next page
 * load. Ratings made here clear it at once.
 */
import type { Db } from "@sfbench/db";
import { env } from "../../env.ts";
import { swrCache, type Cache } from "../cache.ts";
import { readLeaderboardData, type BoardFilter, type LeaderboardData } from "./leaderboard-data.ts";
import { readPopulations, type Population } from "./populations.ts";

/** environment, profile and machine class */
export type EnvironmentFilter = BoardFilter;

const caches = new WeakMap<Db, Cache<LeaderboardData>>();

function cacheOf(db: Db): Cache<LeaderboardData> {
  let cache = caches.get(db);
  if (!cache) {
    cache = swrCache(
      env.SFBENCH_LEADERBOARD_CACHE_SECONDS * 1000,
      // the key is the filter itself (a machine class may contain any character)
      (key) => readLeaderboardData(db, JSON.parse(key) as BoardFilter),
      { version: () => completedRunsVersion(db) },
    );
    caches.set(db, cache);
  }
  return cache;
}

const populationCaches = new WeakMap<Db, Cache<Population[]>>();

/** The board's populations, cached and invalidated like its data. */
export function boardPopulations(db: Db): Promise<Population[]> {
  let cache = populationCaches.get(db);
  if (!cache) {
    cache = swrCache(env.SFBENCH_LEADERBOARD_CACHE_SECONDS * 1000, () => readPopulations(db), { version: () => completedRunsVersion(db) });
    populationCaches.set(db, cache);
  }
  return cache.get("populations");
}

/** Changes whenever a run completes (or a completed run is deleted with its system). */
export async function completedRunsVersion(db: Db): Promise<string> {
  const [row] = await db.$queryRaw<{ n: number; last: Date | null }[]>`
    SELECT count(*)::int AS n, max("finishedAt") AS last FROM "Run" WHERE status = 'completed'`;
  return `${row?.n ?? 0}@${row?.last?.getTime() ?? 0}`;
}

export function leaderboardData(db: Db, filter: EnvironmentFilter): Promise<LeaderboardData> {
  const { kind, nodes, profile, machineClass } = filter;
  return cacheOf(db).get(JSON.stringify({ kind, nodes, profile, machineClass }));
}

/** After a change made through the portal (a rating): the next page shows it. */
export function invalidateLeaderboard(db: Db): void {
  caches.get(db)?.clear();
  populationCaches.get(db)?.clear();
}
